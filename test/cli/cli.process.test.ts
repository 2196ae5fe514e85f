import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { stripMessages } from '../../src/anthropic/cache.js';
import { answerFromResults, bashUse } from '../support/agentServer.js';
import { cliEnv, RUN_EVERYTHING, runCli, SELF } from '../support/cli.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { cliProjectPerTest } from '../support/project.js';
import { scratchDir } from '../support/scratch.js';

let server: MessagesServer;
let dir: string;
let env: NodeJS.ProcessEnv;

cliProjectPerTest('cli', (project) => ({ server, dir, env } = project), { apiKey: 'sk-test', files: { 'notes.txt': 'n', 'main.py': 'print(1)' } });

const twoTurn = () => server.enqueue({ content: [bashUse('toolu_1', 'ls')], stop_reason: 'tool_use' }, answerFromResults);

describe('agentloop -p', () => {
  it('--output-format json: finishes the two-turn bash example with the real file names', async () => {
    twoTurn();
    const run = await runCli(['-p', 'list the files', '--output-format', 'json'], { cwd: dir, env });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      num_turns: 2,
      stop_reason: 'end_turn',
      exit_reason: 'completed',
    });
    expect(result.result).toContain('main.py');
    expect(result.result).toContain('notes.txt');
    expect(typeof result.session_id).toBe('string');
    expect(result.usage.input_tokens).toBeGreaterThan(0);
    expect(server.violations).toEqual([]);
  });

  it('text: only the answer on stdout, nothing on stderr', async () => {
    twoTurn();
    const run = await runCli(['-p', 'list the files'], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Results: main.py\nnotes.txt\n');
    expect(run.stderr).toBe('');
  });

  it('text --verbose: the tool call and its output on stderr, then the usage line', async () => {
    twoTurn();
    const run = await runCli(['-p', '--verbose', 'list the files'], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Results: main.py\nnotes.txt\n');
    expect(run.stderr).toContain('$ ls');
    expect(run.stderr).toContain('  main.py');
    expect(run.stderr).toMatch(/^2 model calls · .* · session [0-9a-f-]{36}$/m);
  });

  it('stream-json --include-loop-events: one JSON object per line for transitions, messages, tool results, and the result last', async () => {
    twoTurn();
    const run = await runCli(['-p', 'list the files', '--output-format', 'stream-json', '--include-loop-events'], { cwd: dir, env });
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; state?: string; cause?: string; event?: unknown });
    const types = lines.map((l) => l.type);
    expect(types).toContain('transition');
    // The event that led to a state is its `cause`: `.event` is a stream_event's, as in Claude Code's stream-json.
    expect(lines.filter((l) => l.type === 'transition').every((l) => typeof l.cause === 'string' && l.event === undefined)).toBe(true);
    expect(types).toContain('assistant');
    expect(types).toContain('tool_result');
    expect(types.at(-1)).toBe('result');
    expect(lines.filter((l) => l.type === 'transition').map((l) => l.state)).toEqual([
      'callingModel',
      'executingTools',
      'appendingResults',
      'callingModel',
      'done',
    ]);
  });

  it('--max-turns stops with error_max_turns and exit code 1', async () => {
    server.enqueue({ content: [bashUse('a', 'true')], stop_reason: 'tool_use' });
    const run = await runCli(['-p', 'loop', '--max-turns', '1', '--output-format', 'json'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'error_max_turns', is_error: true, num_turns: 1, exit_reason: 'max_turns' });
  });

  it('--verbose shows retries on stderr, and --max-retries is the one retry policy (the SDK does not add its own)', async () => {
    // retry-after-ms keeps the waits short; the machine honours it.
    const overloaded = { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' }, headers: { 'retry-after-ms': '5' } };
    server.enqueue(overloaded, { content: [{ type: 'text', text: 'made it' }], stop_reason: 'end_turn' });
    const ok = await runCli(['-p', '--verbose', 'hi'], { cwd: dir, env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('made it\n');
    expect(ok.stderr).toMatch(/model call failed \(Overloaded\); retry 1 in 5 ms/);

    server.enqueue(overloaded, overloaded, overloaded);
    const failed = await runCli(['-p', 'hi', '--max-retries', '2', '--max-tokens', '99', '--output-format', 'json'], {
      cwd: dir,
      env,
    });
    expect(failed.code).toBe(1);
    expect(server.requests).toHaveLength(2 + 3);
    expect(server.requests[2]?.body?.max_tokens).toBe(99);
    expect(JSON.parse(failed.stdout)).toMatchObject({ exit_reason: 'model_error', error: expect.stringMatching(/overloaded_error: Overloaded/) });
  });

  it('reads the key, base URL and model from .env in the working directory', async () => {
    writeFileSync(join(dir, '.env'), `ANTHROPIC_API_KEY=sk-dotenv\nANTHROPIC_BASE_URL=${server.url}\nMODEL_ID=from-dotenv\n`);
    server.enqueue({ content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn' });
    const run = await runCli(['-p', 'hello', '--model', 'from-flag'], { cwd: dir, env: cliEnv({ AGENTLOOP_HOME: join(dir, '.home') }) });
    expect(run.code).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-dotenv');
    expect(server.requests[0]?.body?.model).toBe('from-flag');
  });

  it('MODEL_ID (else Claude Code\'s ANTHROPIC_MODEL) takes the aliases too: sonnet is the full id', async () => {
    const { MODEL_ID: _set, ...withoutModel } = env;
    for (const given of [{ MODEL_ID: 'sonnet' }, { ANTHROPIC_MODEL: 'Haiku' }]) {
      server.enqueue({ content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn' });
      const run = await runCli(['-p', 'hello'], { cwd: dir, env: { ...withoutModel, ...given } });
      expect(run.code, run.stderr).toBe(0);
    }
    expect(server.requests.map((r) => r.body?.model)).toEqual(['claude-sonnet-5-5', 'claude-haiku-5-5']);
  });

  it('a failed run exits 1 with the API’s error on stderr', async () => {
    server.enqueue({ error: { status: 403, type: 'permission_error', message: 'not allowed' } });
    const run = await runCli(['-p', 'hello'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/permission_error: not allowed/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('bash tool flags', () => {
  it('--sandbox runs commands under bubblewrap: writes outside the working directory fail', async () => {
    const scratch = scratchDir();
    onTestFinished(scratch.cleanup);
    const outside = join(scratch.dir, 'outside.txt');
    server.enqueue(
      { content: [bashUse('w', `touch ${outside}; echo inside > here.txt; cat here.txt`)], stop_reason: 'tool_use' },
      answerFromResults,
    );
    const run = await runCli(['-p', 'write', '--sandbox', RUN_EVERYTHING], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Read-only file system/);
    expect(run.stdout).toContain('inside');
    expect(existsSync(outside)).toBe(false);
  });

  it('--sandbox without bwrap names the package to install and exits 2', async () => {
    const run = await runCli(['-p', 'x', '--sandbox'], { cwd: dir, env: { ...env, PATH: '/nonexistent' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bubblewrap/);
    expect(server.requests).toHaveLength(0);
  });

  it('withholds credential variables from commands unless --allow-env names them', async () => {
    const secretEnv = { ...env, MY_SERVICE_API_KEY: 'hunter2' };
    const ask = () => server.enqueue({ content: [bashUse('e', 'echo "key=${MY_SERVICE_API_KEY:-unset} anthropic=${ANTHROPIC_API_KEY:-unset}"')], stop_reason: 'tool_use' }, answerFromResults);
    ask();
    const hidden = await runCli(['-p', 'env', RUN_EVERYTHING], { cwd: dir, env: secretEnv });
    expect(hidden.stdout).toContain('key=unset anthropic=unset');
    ask();
    const allowed = await runCli(['-p', 'env', '--allow-env', 'MY_SERVICE_API_KEY', RUN_EVERYTHING], { cwd: dir, env: secretEnv });
    expect(allowed.stdout).toContain('key=hunter2 anthropic=unset');
  });
});

describe('bad usage and missing configuration', () => {
  it.each([
    [['--bogus'], /^agentloop: unknown option --bogus$/],
    [['-p', 'x', '--max-turns', 'abc'], /^agentloop: --max-turns takes a whole number/],
    [['-p', 'x', '--output-format', 'xml'], /^agentloop: --output-format must be text, json or stream-json/],
    [['-p', 'two', 'words'], /^agentloop: unexpected argument "words"/],
  ])('%j prints one line and a pointer to --help, exits 2', async (args, message) => {
    const run = await runCli(args, { cwd: dir, env });
    expect(run.code).toBe(2);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(message);
    expect(lines[1]).toBe(`see ${SELF} --help`);
  });

  it('names the variable to set when no key is configured', async () => {
    const run = await runCli(['-p', 'x'], { cwd: dir, env: cliEnv({ MODEL_ID: 'm' }) });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/ANTHROPIC_API_KEY/);
  });

  it('uses Claude Code’s default model (claude-opus-4-8, as 2.1.197 asks for) when a key is set and no model', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn' });
    const run = await runCli(['-p', 'x'], { cwd: dir, env: cliEnv({ ANTHROPIC_AUTH_TOKEN: 't', ANTHROPIC_BASE_URL: server.url }) });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests[0]?.body?.model).toBe('claude-opus-4-8');
  });

  it('--version and --help', async () => {
    const version = await runCli(['--version'], { cwd: dir, env });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await runCli(['--help'], { cwd: dir, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--output-format');
  });
});

describe('agentloop --demo', () => {
  it('runs the scripted two-turn example with the real bash tool, says it is scripted, needs no key', async () => {
    const run = await runCli(['--demo', '--cwd', dir], { cwd: tmpdir(), env: cliEnv() });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/model is scripted/);
    expect(run.stderr).toContain('$ ls -A');
    expect(run.stdout).toContain('- main.py');
    expect(run.stdout).toContain('- notes.txt');
  });

  it('--verbose: the usage line says the scripted model reported no tokens (not "0 in · 0 out")', async () => {
    const run = await runCli(['--demo', '--verbose', '--cwd', dir], { cwd: tmpdir(), env: cliEnv() });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^2 model calls · no tokens reported · [\d.]+ s · session [0-9a-f-]{36}$/m);
  });
});

describe('the REPL', () => {
  it('keeps the conversation across questions and quits on q', async () => {
    server.enqueue(
      { content: [{ type: 'text', text: 'first answer' }], stop_reason: 'end_turn' },
      { content: [{ type: 'text', text: 'second answer' }], stop_reason: 'end_turn' },
    );
    const run = await runCli([], { cwd: dir, env, input: 'first question\nsecond question\nq\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('agentloop >> ');
    expect(run.stdout).toContain('first answer');
    expect(run.stdout).toContain('second answer');
    const second = stripMessages(server.requests[1]?.body?.messages ?? []);
    expect(second).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'first question' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'first answer' }] },
      { role: 'user', content: [{ type: 'text', text: 'second question' }] },
    ]);
  });

  it('quits at the end of input (Ctrl-D); empty lines and slash commands ask nothing', async () => {
    expect((await runCli([], { cwd: dir, env, input: '' })).code).toBe(0);
    const run = await runCli([], { cwd: dir, env, input: '\n  \n/help\n/exit\nnever asked\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('/clear');
    expect(server.requests).toHaveLength(0);
  });

  it('piped lines are one message each; a line ending with \\ goes on', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'one' }], stop_reason: 'end_turn' }, { content: [{ type: 'text', text: 'two' }], stop_reason: 'end_turn' });
    const run = await runCli([], { cwd: dir, env, input: 'first\\\nstill first\nsecond\n' });
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    const texts = stripMessages(server.requests[1]?.body?.messages ?? []).filter((m) => m.role === 'user');
    expect(texts.map((m) => m.content)).toEqual([[{ type: 'text', text: 'first\nstill first' }], [{ type: 'text', text: 'second' }]]);
  });
});
