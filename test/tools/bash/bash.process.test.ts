import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/tools/bash/bashTool.js';
import { FIXED_ENV } from '../../../src/tools/bash/run/env.js';
import { loadShellParser } from '../../../src/tools/bash/judge/shell/load.js';
import { bashScratchPerTest, context, liveWithMarker, waitFor, waitUntilEmpty } from './bashHelpers.js';

let dir: string;
const { marked } = bashScratchPerTest((d) => (dir = d));

const tool = createBashTool();

async function run(command: string, extra: Record<string, unknown> = {}, t = tool) {
  const started = Date.now();
  const result = await t.run({ command, ...extra }, context(dir));
  return { ...result, ms: Date.now() - started };
}

function outputFile(content: string): string | undefined {
  return /the full output is in (\S+?)\]/.exec(content)?.[1] ?? /bytes are in (\S+?)\]/.exec(content)?.[1];
}

const hasVi = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v vi'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('bash tool: definition', () => {
  it('documents both input fields and tells the model its working directory', () => {
    const t = createBashTool({ cwd: '/home/me/project' });
    expect(t.name).toBe('bash');
    expect(t.description).toContain('/home/me/project');
    expect(t.inputSchema).toMatchObject({
      type: 'object',
      properties: { command: { type: 'string' }, timeout: { type: 'number' } },
      required: ['command'],
    });
  });

  it('rejects invalid options at creation', () => {
    expect(() => createBashTool({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createBashTool({ maxOutputChars: -1 })).toThrow(/maxOutputChars/);
  });

  it.each([
    [undefined, /the input must be an object, got nothing/],
    [null, /the input must be an object, got null/],
    ['ls', /the input must be an object, got a string/],
    [['ls'], /the input must be an object, got an array/],
    [{}, /"command" is required/],
    [{ command: 42 }, /"command" must be a string, got a number/],
    [{ command: null }, /"command" must be a string, got null/],
    [{ command: { ls: true } }, /"command" must be a string, got an object/],
    [{ command: '   ' }, /"command" is empty/],
    [{ command: 'ls', timeout: '5' }, /"timeout" must be a number, got a string/],
    [{ command: 'ls', timeout: -1 }, /"timeout" must be more than 0, got -1/],
  ])('answers a bad input %j with an error saying what is wrong', async (input, message) => {
    const result = await tool.run(input, context(dir));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(message);
  });

  it('says when the working directory does not exist', async () => {
    const result = await tool.run({ command: 'ls' }, context(join(dir, 'missing')));
    expect(result).toMatchObject({ isError: true });
    expect(result.content).toMatch(/does not exist/);
  });

  it('says when the command cannot be started', async () => {
    const t = createBashTool({ env: { PATH: '/nonexistent' } });
    const result = await t.run({ command: 'ls' }, context(dir));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/could not start the command: spawn bash ENOENT/);
  });

  it('isConcurrencySafe: read-only commands only (once the shell parser has loaded); bad input is unsafe', async () => {
    tool.prepare?.();
    await loadShellParser();
    expect(tool.isConcurrencySafe?.({ command: 'git status && ls -la' })).toBe(true);
    expect(tool.isConcurrencySafe?.({ command: 'ls > out' })).toBe(false);
    expect(tool.isConcurrencySafe?.({ command: 'npm install' })).toBe(false);
    expect(tool.isConcurrencySafe?.({ command: 42 })).toBe(false);
    expect(tool.isConcurrencySafe?.(null)).toBe(false);
  });
});

describe('bash tool: running commands', () => {
  it('returns stdout and stderr interleaved in write order', async () => {
    const r = await run('echo one; echo two >&2; echo three; echo four >&2');
    expect(r).toMatchObject({ isError: false, content: 'one\ntwo\nthree\nfour' });
  });

  it('lets commands open /dev/stdout and /dev/stderr (a pipe, not a socket)', async () => {
    const r = await run('echo one > /dev/stderr; echo two | tee /dev/stdout; echo three >/dev/stdout');
    expect(r).toMatchObject({ isError: false, content: 'one\ntwo\ntwo\nthree' });
  });

  it('runs in the context working directory', async () => {
    const r = await run('pwd');
    expect(r.content).toBe(dir);
  });

  it('says (no output) when there is none', async () => {
    expect(await run('true')).toMatchObject({ isError: false, content: '(no output)' });
  });

  it('reports a non-zero exit status as an error, with the output', async () => {
    const r = await run('echo partial; exit 2');
    expect(r.isError).toBe(true);
    expect(r.content).toBe('partial\n\n[exit code 2]');
  });

  it('reports a command killed by a signal (through the namespace: 128 + N, named)', async () => {
    const r = await run('kill -SEGV $$');
    expect(r.isError).toBe(true);
    expect(r.content).toContain('[exit code 139 (SIGSEGV)]');
    const uncontained = await run('kill -SEGV $$', {}, createBashTool({ contain: false }));
    expect(uncontained.content).toContain('[killed by signal SIGSEGV]');
  });

  it('blocks dangerous commands without running them', async () => {
    const r = await run('sudo touch marker');
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/^Dangerous command blocked: sudo/);
    expect(existsSync(join(dir, 'marker'))).toBe(false);
    // seen through the shell: a variable, a decoded script piped into bash
    for (const command of ['x=sudo; $x touch marker', 'echo c3VkbyB0b3VjaCBtYXJrZXI= | base64 -d | bash']) {
      expect((await run(command)).content).toMatch(/^Dangerous command blocked: sudo/);
    }
    expect(existsSync(join(dir, 'marker'))).toBe(false);
    const harmless = await run('echo sudo 2>/dev/null > /dev/null; echo done >/dev/stderr');
    expect(harmless).toMatchObject({ isError: false, content: 'done' });
  });
});

describe('bash tool: never hangs', () => {
  it('gives commands an empty stdin: cat returns at once', async () => {
    const r = await run('cat; echo after');
    expect(r).toMatchObject({ isError: false, content: 'after' });
    expect(r.ms).toBeLessThan(2000);
  });

  it('sets editors, pagers and prompts to non-interactive values, and git to take no optional lock', async () => {
    const r = await run('for v in GIT_EDITOR EDITOR VISUAL PAGER GIT_PAGER GIT_TERMINAL_PROMPT TERM GIT_OPTIONAL_LOCKS; do echo "$v=${!v}"; done');
    for (const v of ['GIT_EDITOR', 'EDITOR', 'VISUAL', 'PAGER', 'GIT_PAGER', 'GIT_TERMINAL_PROMPT', 'TERM', 'GIT_OPTIONAL_LOCKS']) {
      expect(r.content).toContain(`${v}=${FIXED_ENV[v]}`);
    }
  });

  it('git commit without -m fails fast instead of opening an editor', async () => {
    const r = await run(
      'git init -q && git -c user.name=t -c user.email=t@example.com commit --allow-empty',
      { timeout: 10_000 },
    );
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/problem with the editor/);
    expect(r.ms).toBeLessThan(5000);
  });

  it('vi returns at once with an explanation instead of waiting for a terminal', async () => {
    const r = await run('vi notes.txt', { timeout: 20_000 });
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/^vi is interactive and needs a terminal/);
    expect(r.ms).toBeLessThan(1000);
  });

  it.skipIf(!hasVi)('scripted vi runs and returns', async () => {
    const r = await run(`vi -es -c 's/^/hello/' -c 'wq' notes.txt && cat notes.txt`, { timeout: 20_000 });
    expect(r).toMatchObject({ isError: false, content: 'hello' });
  });

  it.each([
    ['echo hi; sleep SLEEP &', 'hi'],
    ['sleep SLEEP &', '(no output)'],
  ])('returns when the shell exits although a background child holds stdout: %s', async (template, expected) => {
    const marker = marked();
    const r = await run(template.replace('SLEEP', marker));
    expect(r.isError).toBe(false);
    expect(r.content).toBe(expected);
    expect(r.ms).toBeLessThan(2000);
    expect(await waitUntilEmpty(() => liveWithMarker(marker))).toEqual([]);
  });

  it('returns and kills a descendant that left the process group and holds stdout', async () => {
    const marker = marked();
    // The shell exits only once the escapee has left the group, so a group kill cannot reach it.
    const command =
      `setsid sh -c 'echo $$ > escaped.pid; exec sleep ${marker}' & ` +
      'while [ ! -s escaped.pid ]; do sleep 0.01; done; echo started';
    const r = await run(command);
    expect(r).toMatchObject({ isError: false, content: 'started' });
    expect(r.ms).toBeLessThan(2000);
    expect(await waitUntilEmpty(() => liveWithMarker(marker))).toEqual([]);
    // Without containment (a process group only) it escapes: what the namespace is for.
    const escaped = await run(command.replaceAll('escaped.pid', 'escaped2.pid'), {}, createBashTool({ contain: false }));
    expect(escaped.content).toBe('started');
    expect(liveWithMarker(marker)).toHaveLength(1);
  });

  it('returns even when an escaped descendant keeps writing to stdout', async () => {
    const marker = marked();
    const r = await run(
      // The escapee writes its first line before the pid file, so that line is in the pipe before
      // `started` however the scheduler runs `yes` afterwards.
      `setsid sh -c 'echo ${marker}; echo $$ > escaped.pid; exec yes ${marker}' & ` +
        'while [ ! -s escaped.pid ]; do sleep 0.01; done; echo started',
    );
    expect(r.isError).toBe(false);
    expect(r.content).toContain(marker);
    expect(r.ms).toBeLessThan(5000);
    const file = outputFile(r.content);
    if (file !== undefined) rmSync(dirname(file), { recursive: true, force: true });
  });

  it('times out, kills the whole group and keeps the output so far', async () => {
    const marker = marked();
    const r = await run(`echo before; sleep ${marker} & sleep 5`, { timeout: 1000 });
    expect(r.isError).toBe(true);
    expect(r.content).toContain('before');
    expect(r.content).toContain('[timed out after 1000 ms');
    expect(r.ms).toBeGreaterThanOrEqual(1000);
    expect(r.ms).toBeLessThan(3000);
    expect(await waitUntilEmpty(() => liveWithMarker(marker))).toEqual([]);
  });

  it('caps the model timeout at maxTimeoutMs', async () => {
    const t = createBashTool({ maxTimeoutMs: 500 });
    const r = await run('sleep 5', { timeout: 60_000 }, t);
    expect(r.content).toContain('[timed out after 500 ms');
    expect(r.ms).toBeLessThan(2500);
  });

  it('uses timeoutMs when the model gives none', async () => {
    const t = createBashTool({ timeoutMs: 300 });
    const r = await run('sleep 5', {}, t);
    expect(r.content).toContain('[timed out after 300 ms');
  });

  it('an abort mid-command returns within well under a second and kills the group', async () => {
    const marker = marked();
    const controller = new AbortController();
    const pidFile = join(dir, 'started');
    const pending = tool.run(
      { command: `echo working; sleep ${marker} & echo $$ > started; sleep ${marker}` },
      context(dir, controller.signal),
    );
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'));
    const aborted = Date.now();
    controller.abort();
    const r = await pending;
    const ms = Date.now() - aborted;
    expect(ms).toBeLessThan(500);
    expect(r.isError).toBe(true);
    expect(r.content).toContain('working');
    expect(r.content).toContain('[interrupted');
    expect(await waitUntilEmpty(() => liveWithMarker(marker))).toEqual([]);
  });

  it('does not start a command when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await tool.run({ command: 'touch marker' }, context(dir, controller.signal));
    expect(r).toMatchObject({ isError: true });
    expect(r.content).toMatch(/interrupted: the command was not started/);
    expect(existsSync(join(dir, 'marker'))).toBe(false);
  });
});

describe('bash tool: bounded output', () => {
  it('yes | head -c 200M: result bounded to the cap, full output saved to a file', async () => {
    const size = 200_000_000;
    const t = createBashTool({ maxOutputFileBytes: 256 * 1024 * 1024 });
    const r = await run(`yes | head -c ${size}`, { timeout: 60_000 }, t);
    const file = outputFile(r.content);
    try {
      expect(r.isError).toBe(false);
      expect(r.content.length).toBeLessThan(50_000 + 500);
      expect(r.content.startsWith('y\ny\n')).toBe(true);
      expect(r.content).toContain(`[output truncated: ${size - 50_000} of ${size} bytes omitted from the middle`);
      expect(file).toBeDefined();
      expect(file?.startsWith(join(tmpdir(), 'agentloop-output-'))).toBe(true);
      expect(file?.endsWith('/output.txt')).toBe(true);
      expect(statSync(file as string).size).toBe(size);
    } finally {
      if (file !== undefined) rmSync(dirname(file), { recursive: true, force: true });
    }
  });

  it('cuts to maxOutputChars keeping head and tail', async () => {
    const t = createBashTool({ maxOutputChars: 100 });
    const r = await run('seq 1 10000', {}, t);
    const file = outputFile(r.content);
    try {
      const [shown] = r.content.split('\n\n[output truncated');
      const lines = (shown as string).split('\n');
      expect(lines[0]).toBe('1');
      expect(lines.at(-1)).toBe('10000');
      expect((shown as string).replace(/\n\[\.\.\. \d+ bytes omitted \.\.\.\]\n/, '').length).toBeLessThanOrEqual(100);
      expect(readFileSync(file as string, 'utf8')).toBe(execFileSync('seq', ['1', '10000'], { encoding: 'utf8' }));
    } finally {
      if (file !== undefined) rmSync(dirname(file), { recursive: true, force: true });
    }
  });

  it('binary output: returns, replaces invalid UTF-8 and says so, no file when not cut', async () => {
    const r = await run('head -c 4096 /dev/urandom');
    expect(r.isError).toBe(false);
    expect(r.content).toContain('\uFFFD');
    expect(r.content).toContain('[output is not valid UTF-8: invalid bytes were replaced with U+FFFD]');
    expect(r.content).not.toContain('output truncated');
    expect(outputFile(r.content)).toBeUndefined();
  });
});

describe('bash tool: environment', () => {
  it('withholds credentials unless allowed', async () => {
    const t = createBashTool({
      env: {
        PATH: process.env.PATH,
        ANTHROPIC_API_KEY: 'sk-1',
        ANTHROPIC_AUTH_TOKEN: 'tok-1',
        OPENAI_API_KEY: 'sk-2',
        GITHUB_TOKEN: 'gh-1',
        NPM_TOKEN: 'npm-1',
        CLIENT_SECRET: 'sec-1',
        AWS_SECRET_ACCESS_KEY: 'aws-1',
        DB_PASSWORD: 'pw-1',
        DEPLOY_TOKEN: 'allowed-1',
        PLAIN_SETTING: 'plain-1',
        TOKENIZER_PATH: 'plain-2',
      },
      allowEnv: ['DEPLOY_TOKEN'],
    });
    const r = await run('env; echo "deploy token: ${#DEPLOY_TOKEN} characters"', {}, t);
    for (const secret of ['sk-1', 'tok-1', 'sk-2', 'gh-1', 'npm-1', 'sec-1', 'aws-1', 'pw-1']) {
      expect(r.content).not.toContain(secret);
    }
    // Allowed: the command has it; the result still does not show it.
    expect(r.content).toContain('deploy token: 9 characters');
    expect(r.content).toContain('DEPLOY_TOKEN=[redacted DEPLOY_TOKEN]');
    expect(r.content).toContain('PLAIN_SETTING=plain-1');
    expect(r.content).toContain('TOKENIZER_PATH=plain-2');
  });

  it('withholds credentials of process.env by default', async () => {
    process.env.AGENTLOOP_TEST_API_KEY = 'sk-from-process-env';
    try {
      const r = await run('env', {}, createBashTool());
      expect(r.content).not.toContain('sk-from-process-env');
    } finally {
      delete process.env.AGENTLOOP_TEST_API_KEY;
    }
  });
});
