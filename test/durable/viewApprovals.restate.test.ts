/**
 * `agentloop view --restate` shows the call a durable run waits on, in real headless Chromium (playwright-core)
 * against the real restate-server: the run's page has a card with the call's display line and tool, since when, why
 * it is asked, and the approve / deny commands to type; the commands, typed as shown, answer it; the card then says
 * how it was answered (approved: the call ran; denied: what the model was told), in English and in Chinese.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFromResults, bashUse, firstPrompt, lastToolResults } from '../support/agentServer.js';
import type { Step, StepFn } from '../support/messagesServer.js';
import { startCli } from '../support/cli.js';
import { startCluster, type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';
import { launchChromium, showViewer } from '../support/browser.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`view --restate approval tests skipped: ${binary.problem}`);


/** `do: COMMAND` runs COMMAND, then answers with what it gave. */
const agent: StepFn = (body, index): Step => {
  if (lastToolResults(body).length > 0) return answerFromResults;
  const command = /^do: (.+)$/.exec(firstPrompt(body))?.[1] ?? 'true';
  return { content: [bashUse(`toolu_v${index}`, command)], stop_reason: 'tool_use' };
};

let cluster: Cluster;
let browser: Browser;

/** Submits `do: COMMAND` in the default mode; its id once its call waits (listed by `approvals`). */
async function waitingRun(command: string): Promise<{ id: string; toolUseId: string }> {
  const run = await cluster.cli(['submit', '-p', `do: ${command}`, '--permission-mode', 'default', ...cluster.flags]);
  expect(run.code, run.stderr).toBe(0);
  const id = run.stdout.trim();
  const line = await until('the call to be listed', async () => (await cluster.cli(['approvals', ...cluster.flags])).stdout.split('\n').find((l) => l.startsWith(`${id}  `)), 60_000, 500);
  return { id, toolUseId: line.split('  ')[1] as string };
}

/** `view --restate` of session `id`, and a page on it. */
async function viewOf(id: string, lang: 'en' | 'zh' = 'en'): Promise<{ page: Page; close: () => Promise<void> }> {
  const view = startCli(['view', '--restate', cluster.restate.ingress, '--admin', cluster.restate.admin, '--port', '0', id], { cwd: cluster.dir, env: cluster.env });
  const url = await until('the viewer URL', () => /^http:\/\/127\.0\.0\.1:\d+\/\S+$/m.exec(view.output().stdout)?.[0], 30_000);
  const page = await showViewer(await browser.newPage({ viewport: { width: 1280, height: 900 } }), url, { lang });
  return {
    page,
    close: async () => {
      await page.close();
      view.child.kill('SIGINT');
      await view.done;
    },
  };
}

/** Runs a command as the card shows it (the shell reads its quoting), with `TEXT` replaced by `reason`. */
function typed(command: string, reason?: string) {
  const line = reason === undefined ? command : command.replace(/ TEXT\b/, ` '${reason}'`);
  return spawnSync('sh', ['-c', line], { cwd: cluster.dir, env: cluster.env, encoding: 'utf8', timeout: 30_000 });
}

const text = async (page: Page, testid: string) => (await page.getByTestId(testid).first().textContent())?.trim();

describe.skipIf('problem' in binary)('view --restate shows the call a durable run waits on', () => {
  beforeAll(async () => {
    cluster = await startCluster((binary as { path: string }).path);
    for (let i = 0; i < 12; i++) cluster.model.enqueue(agent);
    await cluster.addWorker();
    await cluster.register();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.close();
  });

  it('the card shows the call, since when, why, the commands; approve typed as shown runs it and the card says so', async () => {
    const { id, toolUseId } = await waitingRun('touch viewed.txt');
    const { page, close } = await viewOf(id);
    try {
      const card = page.locator(`[data-testid="approval"][data-tool-use-id="${toolUseId}"]`);
      await card.and(page.locator('[data-state="waiting"]')).waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('approvals').isVisible()).toBe(true);
      expect(await text(page, 'approvals-count')).toBe('1 call waiting');
      expect(await text(page, 'approval-call')).toBe('$ touch viewed.txt');
      expect(await card.textContent()).toContain(`bash · ${toolUseId}`);
      expect(await text(page, 'approval-since')).toMatch(/^Waiting since .+ \(\d+ (s|min \d+ s)\): the run is parked on Restate, no worker holds it\.$/);
      expect(await text(page, 'approval-reason')).toMatch(/^Asked because .*touch viewed\.txt.*\.$/);
      const approve = (await text(page, 'approval-approve')) as string;
      expect(approve).toMatch(new RegExp(` approve ${id} ${toolUseId} --restate ${cluster.restate.ingress.replace(/[.:/]/g, '\\$&')}`));
      expect(await text(page, 'approval-deny')).toMatch(new RegExp(` deny ${id} ${toolUseId} --restate .+ --reason TEXT$`));
      expect(existsSync(join(cluster.dir, 'viewed.txt')), 'ran unapproved').toBe(false);
      // The timeline's tool card of that call says it waits for approval, not that it runs (src/view/cards/tool.ts).
      await page.keyboard.press('End');
      const status = page.locator(`[data-tool="${toolUseId}"] [data-testid="tool-status"]`);
      await expect.poll(() => status.textContent()).toMatch(/^⏸ waiting for approval: .*`agentloop approvals` lists it/);

      const answered = typed(approve);
      expect([answered.status, answered.stderr]).toEqual([0, `approved: $ touch viewed.txt (session ${id}, ${toolUseId})\n`]);
      await card.and(page.locator('[data-state="approved"]')).waitFor({ timeout: 30_000 });
      expect(await text(page, 'approval-answer')).toBe('Approved: the call ran.');
      expect(await text(page, 'approvals-count')).toBe('none waits now');
      expect(existsSync(join(cluster.dir, 'viewed.txt'))).toBe(true);
    } finally {
      await close();
    }
  }, 180_000);

  it('deny typed as shown, with a reason: the card says what the model was told (the page in Chinese)', async () => {
    const { id, toolUseId } = await waitingRun('touch refused.txt');
    const { page, close } = await viewOf(id, 'zh');
    try {
      const card = page.locator(`[data-testid="approval"][data-tool-use-id="${toolUseId}"]`);
      await card.and(page.locator('[data-state="waiting"]')).waitFor({ timeout: 30_000 });
      expect(await text(page, 'approvals-count')).toBe('1 个调用在等待');
      const answered = typed((await text(page, 'approval-deny')) as string, 'use docs instead');
      expect(answered.status, answered.stderr).toBe(0);
      await card.and(page.locator('[data-state="denied"]')).waitFor({ timeout: 30_000 });
      expect(await text(page, 'approval-answer')).toBe('已拒绝：模型收到的理由是“use docs instead”。');
      expect(existsSync(join(cluster.dir, 'refused.txt'))).toBe(false);
    } finally {
      await close();
    }
  }, 180_000);
});
