/**
 * A command runner of the library user's own (docs/library.md, "The command runner"): the bash tool hands each command
 * to it instead of running it itself. The runner here is the page's `spawnRunner`, started through a bash of its own
 * that changes to the working directory (where the page's example runs `docker exec -w`): its commands are the ones
 * the model asked for, its output the tool's result, its timeout and abort the tool's.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBashTool, defaultTools, reply, runAgent, scriptedModel, type CommandRunner } from 'agentloop';

// The example of docs/library.md, as it is there.
/** A runner that starts each command with `argvOf(command, cwd)`: in a container, over SSH. */
function spawnRunner(kind: string, argvOf: (command: string, cwd: string) => string[]): CommandRunner {
  return {
    kind,
    run: (run) =>
      new Promise((resolve) => {
        const [program, ...args] = argvOf(run.command, run.cwd);
        const child = spawn(program as string, args, { env: run.env, stdio: ['ignore', 'pipe', 'pipe'], signal: run.signal });
        const timer = setTimeout(() => (child.kill('SIGKILL'), resolve({ kind: 'timeout' })), run.timeoutMs);
        const ended = (ending: Parameters<typeof resolve>[0]) => (clearTimeout(timer), resolve(run.signal.aborted ? { kind: 'aborted', started: true } : ending));
        child.stdout.on('data', run.onData);
        child.stderr.on('data', run.onData);
        child.on('spawn', () => run.onSpawned?.());
        child.on('error', (error) => ended({ kind: 'spawn-error', message: error.message }));
        child.on('close', (code, signal) => ended({ kind: 'exit', code, signal }));
      }),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'agentloop-runner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The test's "container": a bash that changes to the directory first, counting what it was given. */
const given: string[] = [];
const local = spawnRunner('local', (command, cwd) => (given.push(command), ['bash', '-c', 'cd -- "$1" && eval "$2"', 'runner', cwd, command]));
const context = () => ({ cwd: dir, signal: new AbortController().signal });

describe('a command runner of your own', () => {
  it('runs every command the model asks for, in the working directory; its output is the result', async () => {
    writeFileSync(join(dir, 'hello.txt'), 'hi');
    const model = scriptedModel([reply.toolUse([{ id: 'toolu_1', name: 'bash', input: { command: 'ls; echo oops >&2; exit 3' } }]), reply.text('done')]);
    const run = await runAgent('list', { model: 'scripted', modelCall: model.call, cwd: dir, tools: defaultTools({ cwd: dir, runner: local, tools: ['Bash'] }) });
    expect(given).toEqual(['ls; echo oops >&2; exit 3']);
    expect(model.requests[1]?.messages[2]).toMatchObject({ content: [{ tool_use_id: 'toolu_1', content: 'hello.txt\noops\n\n[exit code 3]', is_error: true }] });
    expect(run.context.exitReason).toBe('completed');
  });

  it("ends a command at the tool's timeout, and when the run is aborted", async () => {
    const bash = createBashTool({ runner: local });
    expect((await bash.run({ command: 'sleep 5', timeout: 200 }, context())).content).toMatch(/timed out after 200 ms/);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 200);
    expect((await bash.run({ command: 'sleep 5' }, { cwd: dir, signal: abort.signal })).content).toMatch(/interrupted/);
  });

  it('is refused with the sandbox, which a runner of your own cannot give', () => {
    expect(() => createBashTool({ runner: local, sandbox: true })).toThrow(/sandbox and runner/);
  });
});
