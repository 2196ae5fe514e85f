/**
 * `--step` as shipped: the CLI as a process, the page in Chromium. `agentloop --demo --step` waits
 * before its model call until the page says Next (the transcript has no request until then), at the
 * reply (its stop_reason shown, no tool started), before the tool and before the append, shows each
 * effect before it happens, runs to the end on "Run to the end" and then says the run is over; a kill while parked is
 * just a kill: `-p … --step` killed before its model call resumes with `--continue` and finishes.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFromResults, bashUse, startCheckedServer } from '../../support/agentServer.js';
import { cliEnv, runCli, startCli } from '../../support/cli.js';
import type { MessagesServer } from '../../support/messagesServer.js';
import { waitFor } from '../../support/sessions.js';
import { launchChromium } from '../../support/browser.js';


let dir: string;
let home: string;
let browser: Browser;
let page: Page;
let server: MessagesServer | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-step-'));
  home = join(dir, 'home');
  mkdirSync(join(dir, 'project'));
  writeFileSync(join(dir, 'project', 'notes.txt'), 'n');
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true });
  page = await context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The records of the only transcript under `home` (of the given session), as parsed lines. */
function records(id: string): Array<{ type: string }> {
  const text = readFileSync(join(home, 'sessions', `${id}.jsonl`), 'utf8');
  return text.trim().split('\n').map((l) => JSON.parse(l) as { type: string });
}

describe('agentloop --demo --step', () => {
  it('waits before the model call until Next in the page, shows each effect before it happens, runs to the end on request', async () => {
    const cli = startCli(['--demo', '--step'], { cwd: join(dir, 'project'), env: cliEnv({ AGENTLOOP_HOME: home }) });
    try {
      const url = await waitFor(
        'the terminal to say the run waits',
        () => /\[step\] the run waits for the page before the model request \(turn 1, 1 message\): press Next \(or Run to the end\) at (http:\S+)/.exec(cli.output().stderr)?.[1],
        20_000,
      );
      const id = new URL(url).searchParams.get('session') as string;
      await page.goto(url);
      await page.waitForSelector('body[data-loaded="true"]');
      await page.getByTestId('step-waits').filter({ hasText: 'waits before sending request 1 (turn 1)' }).waitFor();
      // Parked: the machine is in callingModel and nothing was sent.
      expect(records(id).map((r) => r.type)).toContain('transition');
      expect(records(id).filter((r) => r.type === 'request')).toHaveLength(0);
      expect(await page.getByTestId('chapter-mark').textContent()).toBe('①②③');
      expect(await page.getByTestId('state-code').textContent()).toContain('turnCount: 1');

      await page.getByTestId('step-next').tap();
      // ④: the reply is in, with its stop_reason and its tool_use block, before the loop reads it and before any tool starts.
      await waitFor('the wait at the reply', () => cli.output().stderr.includes('[step] waiting for the page before the loop reads the reply (turn 1: stop_reason tool_use, 1 tool_use block)'), 20_000);
      await page.getByTestId('step-waits').filter({ hasText: 'The reply of turn 1 is in: stop_reason tool_use, 1 tool_use block ($ ls -A)' }).waitFor();
      expect(records(id).filter((r) => r.type === 'request')).toHaveLength(1);
      expect(records(id).filter((r) => r.type === 'tool_start' || r.type === 'usage')).toHaveLength(0);
      expect(await page.getByTestId('step-next').textContent()).toBe('Next: read the reply');

      await page.getByTestId('step-next').tap();
      await waitFor('the wait before the tool', () => cli.output().stderr.includes('[step] waiting for the page before $ ls -A'), 20_000);
      await page.getByTestId('step-waits').filter({ hasText: 'waits before running a tool: $ ls -A' }).waitFor();
      // The reply is in messages; the tool has not started.
      expect(records(id).filter((r) => r.type === 'usage')).toHaveLength(1);
      expect(records(id).filter((r) => r.type === 'tool_start')).toHaveLength(0);

      await page.getByTestId('step-next').tap();
      // ⑥: the tool ran; its result is not appended yet.
      await page.getByTestId('step-waits').filter({ hasText: 'The run waits before the loop appends 1 tool_result block (toolu_demo_01) to messages' }).waitFor();
      expect(records(id).filter((r) => r.type === 'tool_result')).toHaveLength(1);
      expect(records(id).filter((r) => r.type === 'message' && (r as { origin?: string }).origin === 'tools')).toHaveLength(0);

      await page.getByTestId('step-next').tap();
      await page.getByTestId('step-waits').filter({ hasText: 'waits before sending request 2 (turn 2)' }).waitFor();
      expect(await page.getByTestId('chapter-mark').textContent()).toBe('⑦');
      // The controls are words: no glyph that needs an emoji font.
      for (const button of await page.locator('[data-testid="stepper"] button, nav.controls button').allTextContents()) expect(button).not.toMatch(/[\u23e9-\u23fa]/u);

      await page.getByTestId('step-run').click();
      await waitFor('the run to end', () => cli.output().stderr.includes('page stays up until Ctrl-C'), 20_000);
      await page.getByTestId('step-waits').filter({ hasText: 'The run is over: nothing more will happen.' }).waitFor();
      await page.getByText('step 7 / 7').waitFor();
      expect(await page.getByTestId('step-run').isDisabled()).toBe(true);
      expect(cli.output().stdout).toMatch(/The working directory has 1 entry:\n- notes\.txt/);
      expect(records(id).at(-1)).toMatchObject({ type: 'result', exitReason: 'completed' });
    } finally {
      cli.child.kill('SIGINT');
    }
    expect((await cli.done).code).toBe(0);
  });
});

describe('the demo’s way in', () => {
  it('ends with the command that steps it, which opens the stepped viewer as printed, from another directory too', async () => {
    const env = cliEnv({ AGENTLOOP_HOME: join(dir, 'home4') });
    const demo = await runCli(['--demo'], { cwd: join(dir, 'project'), env });
    expect(demo.code).toBe(0);
    const command = /\[demo\] Step through this loop in the browser[^\n]*\n {2}(.+ --demo --step)\n$/.exec(demo.stderr)?.[1] as string;
    expect(command).toMatch(/^node \/\S+\/dist\/cli\/main\.js --demo --step$/);
    // As printed, in a shell, from a directory of its own.
    const other = join(dir, 'elsewhere');
    mkdirSync(other, { recursive: true });
    const child = spawn('sh', ['-c', `exec ${command}`], { cwd: other, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const url = await waitFor('the stepped run to wait', () => /\[step\] the run waits for the page before the model request .* at (http:\S+)/.exec(stderr)?.[1], 20_000);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('"stepping":true');
    } finally {
      child.kill('SIGINT');
    }
  });

  it('is said in Chinese where the terminal is (LANG=zh_CN.UTF-8) or --lang zh asks', async () => {
    const demo = await runCli(['--demo', '--lang', 'zh'], { cwd: join(dir, 'project'), env: cliEnv({ AGENTLOOP_HOME: join(dir, 'home4') }) });
    expect(demo.stderr).toMatch(/^\[demo\] 模型是脚本/);
    expect(demo.stderr).toMatch(/\[demo\] 在浏览器里一步一步看这个循环.*\n {2}node \S+ --demo --step\n$/);
  });
});

describe('agentloop --demo --step, killed while it waits', () => {
  it('at the reply: --demo --continue resumes it and finishes, asking the model again', async () => {
    const env = cliEnv({ AGENTLOOP_HOME: join(dir, 'home3') });
    const cwd = join(dir, 'project');
    const cli = startCli(['--demo', '--step'], { cwd, env });
    const url = new URL(await waitFor('the first wait', () => /\[step\] the run waits for the page before .* at (http:\S+)/.exec(cli.output().stderr)?.[1], 20_000));
    const next = await fetch(new URL(`/api/step/next?token=${url.searchParams.get('token')}`, url), { method: 'POST' });
    expect(next.status).toBe(200);
    await waitFor('the wait at the reply', () => cli.output().stderr.includes('before the loop reads the reply'), 20_000);
    cli.child.kill('SIGKILL');
    await cli.done;
    const resumed = await runCli(['--demo', '--continue'], { cwd, env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/The working directory has 1 entry:\n- notes\.txt/);
    const [session] = readdirSync(join(dir, 'home3', 'sessions')).filter((f) => f.endsWith('.jsonl'));
    const text = readFileSync(join(dir, 'home3', 'sessions', session as string), 'utf8');
    expect(text.match(/"type":"prompt"/g)).toHaveLength(1); // one question, asked once
    expect(text.match(/"type":"request"/g)).toHaveLength(3); // the first asked again, then the second
  });
});

describe('-p … --step', () => {
  it('killed while parked before its model call: just a kill; --continue resumes and finishes', async () => {
    server = await startCheckedServer();
    const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(dir, 'home2') });
    const cwd = join(dir, 'project');
    const cli = startCli(['-p', 'list the files', '--step'], { cwd, env });
    await waitFor('the run to wait', () => cli.output().stderr.includes('[step] the run waits for the page before the model request'), 20_000);
    cli.child.kill('SIGKILL');
    await cli.done;
    expect(server.requests).toHaveLength(0);

    server.enqueue({ content: [bashUse('toolu_1', 'ls')], stop_reason: 'tool_use' }, answerFromResults);
    const resumed = await runCli(['-p', '--continue'], { cwd, env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/notes\.txt/);
    expect(server.requests).toHaveLength(2);
    const [session] = readdirSync(join(dir, 'home2', 'sessions')).filter((f) => f.endsWith('.jsonl'));
    const text = readFileSync(join(dir, 'home2', 'sessions', session as string), 'utf8');
    expect(text.match(/"type":"prompt"/g)).toHaveLength(1); // one question, asked once
  });
});
