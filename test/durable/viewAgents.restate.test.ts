/**
 * `agentloop view --restate` of a durable session whose run had two subagents, each its own invocation (issue 38), in
 * real headless Chromium against the real restate-server: the Agent call's card steps into the child's run as the
 * local viewer does (view/timeline/agents.ts, client/agentScope.ts), the child's steps are its own (its prompt, its
 * bash call's display line, its system prompt, not the parent's question), and the bar steps back to the parent's step.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../support/cli.js';
import { AGENTS, childScript, type Hold } from './childScript.js';
import { startCluster, type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';
import { launchChromium, showViewer, stepUntil, testIdText } from '../support/browser.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`view --restate subagent tests skipped: ${binary.problem}`);


let cluster: Cluster;
let browser: Browser;
let hold: Hold = () => false;

const text = testIdText;

describe.skipIf('problem' in binary)('view --restate of a durable run with subagents', () => {
  beforeAll(async () => {
    cluster = await startCluster((binary as { path: string }).path);
    const script = childScript((child, point) => hold(child, point));
    for (let i = 0; i < 10; i++) cluster.model.enqueue((body) => script.step(body));
    await cluster.addWorker();
    await cluster.register();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await cluster?.close();
  });

  /** `view --restate` of session `id`, a page on it, and its first Agent call's card stepped into. */
  async function steppedInto(id: string): Promise<{ page: Page; parentStep: string; errors: string[]; close: () => Promise<void> }> {
    const view = startCli(['view', '--restate', cluster.restate.ingress, '--admin', cluster.restate.admin, '--port', '0', id], { cwd: cluster.dir, env: cluster.env });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const close = async () => {
      await page.close();
      view.child.kill('SIGINT');
      await view.done;
    };
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const url = await until('the viewer URL', () => /^http:\/\/127\.0\.0\.1:\d+\/\S+$/m.exec(view.output().stdout)?.[0], 30_000);
    await showViewer(page, url, { lang: 'en' });
    await page.keyboard.press('Home');
    const into = page.getByTestId('step-into');
    expect(await stepUntil(page, () => into.first().isVisible())).toBe(true);
    expect(await into.first().textContent()).toBe('Step into logger ›');
    const parentStep = await text(page, 'step-label');
    await into.first().click();
    await page.waitForFunction(() => location.hash.includes('agent=toolu_agent_'));
    return { page, parentStep, errors, close };
  }

  it("steps into a child's run from its Agent call's card, and back", async () => {
    const id = await cluster.submit(['-p', 'case v: a b', '--agents', JSON.stringify(AGENTS), '--allowedTools', 'Bash']);
    await cluster.resultOf(id, 60_000);
    const { page, parentStep, errors, close } = await steppedInto(id);
    try {
      expect(await text(page, 'agent-where')).toBe('main › logger: the run of subagent logger (log a), started by the Agent call toolu_agent_v_a; it ended done');
      expect(await stepUntil(page, async () => (await text(page, 'sentence')).includes('echo x >> log-v-a'))).toBe(true);
      expect(await text(page, 'messages')).toContain('append x to log v-a');
      expect(await text(page, 'messages')).not.toContain('case v: a b');
      expect(await text(page, 'request')).toContain('You are the logger agent.');

      await page.getByTestId('step-back').click();
      await page.waitForFunction(() => !location.hash.includes('agent='));
      expect(await text(page, 'step-label')).toBe(parentStep);
      expect(await text(page, 'messages')).toContain('case v: a b');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('steps into a child while it runs (its records read from its own invocation), and sees it end', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    hold = (child, point) => (child === 'w-a' && point === 'second request' ? released : false);
    const id = await cluster.submit(['-p', 'case w: a', '--agents', JSON.stringify(AGENTS), '--allowedTools', 'Bash']);
    await until('the child to have run its command', () => (existsSync(join(cluster.dir, 'log-w-a')) ? true : undefined), 60_000);
    const { page, errors, close } = await steppedInto(id);
    try {
      expect(await text(page, 'agent-where')).toBe('main › logger: the run of subagent logger (log a), started by the Agent call toolu_agent_w_a; still running');
      expect(await stepUntil(page, async () => (await text(page, 'sentence')).includes('echo x >> log-w-a'))).toBe(true);
      release();
      await cluster.resultOf(id, 60_000);
      await page.reload();
      await page.waitForSelector('body[data-loaded="true"]', { timeout: 30_000 });
      await until('the child to show ended', async () => ((await text(page, 'agent-where')).endsWith('it ended done') ? true : (await page.reload(), undefined)), 30_000, 1000);
      expect(errors).toEqual([]);
    } finally {
      release();
      await close();
    }
  }, 120_000);
});
