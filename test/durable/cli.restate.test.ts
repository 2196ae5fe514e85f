/**
 * The durable commands' command lines, and what they load: the local CLI's other commands load
 * nothing of Restate, and the client commands (`submit`, `result`, ...) not the SDK either.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLocal, parseCommandLine } from '../../src/cli/commandLine/args.js';
import { resolveModel } from '../../src/core/models.js';
import { CLI, SELF, cliEnv } from '../support/cli.js';
import { writeModuleLogHook } from '../support/moduleLog.js';
import { freePort } from './restateServer.js';

describe('durable command lines', () => {
  const isDurableCommand = (argv: string[]) => !isLocal(parseCommandLine(argv));
  const parseDurableArgs = parseCommandLine;

  it('are told apart from the local ones', () => {
    expect(isDurableCommand(['worker'])).toBe(true);
    expect(isDurableCommand(['submit', '-p', 'x'])).toBe(true);
    expect(isDurableCommand(['view', 'abc'])).toBe(false);
    expect(isDurableCommand(['view', '--restate=http://h:8080', 'abc'])).toBe(true);
    expect(isDurableCommand(['-p', 'worker'])).toBe(false);
  });

  it('take their flags, with defaults', () => {
    expect(parseDurableArgs(['worker'])).toEqual({ command: 'worker', port: 9080, host: '127.0.0.1' });
    // Model aliases resolve as -p resolves them (the worker and submit sent the id "sonnet").
    expect(parseDurableArgs(['worker', '--model', 'sonnet'])).toMatchObject({ model: resolveModel('sonnet') });
    expect(parseDurableArgs(['submit', '-p', 'hi', '--model', 'Haiku'])).toMatchObject({ model: resolveModel('haiku') });
    expect(parseDurableArgs(['submit', '-p', 'hi', '--model', 'claude-x-1'])).toMatchObject({ model: 'claude-x-1' });
    // MCP servers for every run of the worker, as -p takes them (repeatable); an empty value is a usage error.
    expect(parseDurableArgs(['worker', '--mcp-config', 'a.json', '--mcp-config', '{"mcpServers":{}}'])).toMatchObject({ mcpConfig: ['a.json', '{"mcpServers":{}}'] });
    expect(() => parseDurableArgs(['worker', '--mcp-config', ' '])).toThrow(/--mcp-config takes a file or JSON text/);
    expect(parseDurableArgs(['worker', '--port', '9090', '--register', 'http://a:9070/', '--advertise', 'http://lb:9080'])).toMatchObject({
      port: 9090,
      register: 'http://a:9070',
      advertise: 'http://lb:9080',
    });
    expect(parseDurableArgs(['submit', '-p', 'hi', '--wait', '--max-turns', '3', '--idempotency-key', 'job-7'])).toEqual({
      command: 'submit',
      restate: 'http://127.0.0.1:8080',
      admin: 'http://127.0.0.1:9070',
      prompt: 'hi',
      wait: true,
      maxTurns: 3,
      idempotencyKey: 'job-7',
    });
    // Rules for a run, a floor for a worker; the calls waiting for approval, and their answers.
    expect(parseDurableArgs(['submit', '-p', 'hi', '--permission-mode', 'default', '--allowedTools', 'Bash(npm test:*)', '--disallowedTools', 'Bash(rm:*)', '--approval-timeout', '90'])).toMatchObject({
      permissionMode: 'default',
      allowedTools: ['Bash(npm test:*)'],
      disallowedTools: ['Bash(rm:*)'],
      approvalTimeout: 90,
    });
    expect(parseDurableArgs(['worker', '--disallowedTools', 'Bash(rm:*)', '--permission-mode', 'acceptEdits'])).toMatchObject({ disallowedTools: ['Bash(rm:*)'], permissionMode: 'acceptEdits' });
    expect(parseDurableArgs(['approvals'])).toEqual({ command: 'approvals', restate: 'http://127.0.0.1:8080', admin: 'http://127.0.0.1:9070' });
    expect(parseDurableArgs(['deny', 's-1', 'toolu_1', '--reason', 'not now'])).toMatchObject({ command: 'deny', id: 's-1', toolUseId: 'toolu_1', reason: 'not now' });
    // The admin API is the ingress's host on port 9070 unless --admin says otherwise.
    expect(parseDurableArgs(['result', 'abc-1', '--restate', 'https://r.example:8080'])).toEqual({
      command: 'result',
      restate: 'https://r.example:8080',
      admin: 'https://r.example:9070',
      id: 'abc-1',
    });
    expect(parseDurableArgs(['view', '--restate', 'http://r:8080', 'abc', '--port', '0', '--admin', 'http://a:1'])).toEqual({
      command: 'view',
      restate: 'http://r:8080',
      admin: 'http://a:1',
      id: 'abc',
      port: 0,
    });
  });

  it.each([
    [['submit'], 'submit needs -p "PROMPT"'],
    [['submit', '-p', 'x', '--restate', 'localhost:8080'], '--restate takes an http:// or https:// URL, not "localhost:8080"'],
    [['result'], 'result needs a session id (submit prints it)'],
    [['result', '../x'], 'result: "../x" is not a session id (letters, digits, _ and -)'],
    [['worker', '--port', 'x'], '--port takes a whole number, not "x"'],
    [['worker', '--advertise', 'http://lb:1'], '--advertise goes with --register'],
    [['worker', '--regster', 'http://a'], 'unknown option --regster (did you mean --register?)'],
    [['submit', '-p', 'x', 'y'], 'unexpected argument "y" after submit'],
    [['worker', '--identity-key', 'abc'], '--identity-key takes a Restate public key (publickeyv1_...), not "abc"'],
    [['worker', '--replace'], '--replace goes with --register'],
    [['submit', '-p', 'x', '--idempotency-key', 'a b'], '--idempotency-key takes 1 to 256 visible ASCII characters, not "a b"'],
    [['messages', 'x', '--admin', 'localhost:9070'], '--admin takes an http:// or https:// URL, not "localhost:9070"'],
    [['approve', 's-1'], 'approve needs a session id and a tool_use id (approve ID TOOL_USE_ID: see approvals)'],
    [['deny', 's-1', 'tool use'], 'deny: "tool use" is not a tool_use id (letters, digits, _ and -)'],
    [['worker', '--allowedTools', 'Bash'], 'worker does not take --allowedTools'],
    [['submit', '-p', 'x', '--permission-mode', 'yolo'], '--permission-mode must be one of'],
  ])('refuse %j in one line', (argv, message) => {
    expect(() => parseDurableArgs(argv)).toThrow(message);
  });
});

describe('durable commands as processes', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentloop-durable-cli-'));
    writeModuleLogHook(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const root = fileURLToPath(new URL('../..', import.meta.url));
  /** Runs the CLI; lists the files it loaded, relative to the project root. */
  function loaded(args: string[], env: Record<string, string> = {}) {
    const log = join(dir, `modules-${args.length}-${Math.random()}.log`);
    writeFileSync(log, '');
    const run = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, CLI, ...args], {
      cwd: dir,
      env: { ...cliEnv(env), MODULE_LOG: log },
      encoding: 'utf8',
    });
    const files = [...new Set(readFileSync(log, 'utf8').split('\n'))]
      .filter((url) => url.startsWith('file:') && !url.startsWith(pathToFileURL(dir).href))
      .map((url) => relative(root, fileURLToPath(url)));
    return { code: run.status, stdout: run.stdout, stderr: run.stderr, files };
  }

  it('a bad durable flag is one line and a pointer to --help', () => {
    const run = loaded(['submit', '-p', 'x', '--wiait']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`agentloop: unknown option --wiait (did you mean --wait?)\nsee ${SELF} submit --help\n`);
  });

  it('a Restate that is not there is said in one line, and the client loads no SDK', async () => {
    const [port, admin] = [await freePort(), await freePort()];
    const restate = `http://127.0.0.1:${port}`;
    for (const args of [['result', 'abc'], ['messages', 'abc'], ['view', 'abc']]) {
      const run = loaded([...args, '--restate', restate, '--admin', `http://127.0.0.1:${admin}`]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `agentloop: cannot reach the Restate server at http://127.0.0.1:${admin} (ECONNREFUSED): its admin API, where agentloop reads runs (--admin sets its URL)\n`,
      );
      expect(run.files.some((f) => f.includes('@restatedev'))).toBe(false);
      expect(run.files.some((f) => /chunks\/run-/.test(f))).toBe(false);
    }
    const submit = loaded(['submit', '-p', 'x', '--restate', restate]);
    expect([submit.code, submit.stderr]).toEqual([1, `agentloop: cannot reach the Restate server at ${restate} (ECONNREFUSED)\n`]);
  });

  it('a worker that cannot register says which server it cannot reach, not "fetch failed"', () => {
    const run = loaded(['worker', '--port', '0', '--register', 'http://127.0.0.1:9'], { ANTHROPIC_API_KEY: 'sk-ant-test', MODEL_ID: 'claude-test' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^agentloop: cannot reach the Restate server at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)$/m);
    expect(run.stderr).not.toMatch(/fetch failed/);
  });

  it('a local run loads nothing of the durable commands', () => {
    const run = loaded(['-p', 'x']); // no key: exits 2 once the runner is loaded
    expect(run.code).toBe(2);
    expect(run.files.some((f) => f.includes('@restatedev') || /chunks\/durable/.test(f))).toBe(false);
  });

  it('a rule that does not parse is one line, exit 2, before anything is sent', () => {
    for (const args of [['submit', '-p', 'x', '--allowedTools', 'Bash(git:*log)', '--restate', 'http://127.0.0.1:9'], ['worker', '--port', '0', '--disallowedTools', 'Bash(git:*log)']]) {
      const run = loaded(args, { ANTHROPIC_API_KEY: 'sk-ant-test', MODEL_ID: 'claude-test' });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^agentloop: --(allowed|disallowed)Tools: .+\n/);
      expect(run.stderr.split('\n').filter((l) => l.startsWith('agentloop:'))).toHaveLength(1);
    }
  });

  it('a worker without a model configured says so and exits 2', () => {
    const run = loaded(['worker', '--port', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/ANTHROPIC_API_KEY/);
  });
});
