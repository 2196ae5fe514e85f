/**
 * The run's first command in the contained shell started ahead (src/tools/bash/run/spare.ts, issue 40): the bash
 * tool's `prepare({ cwd, signal })` starts the chain a command starts with, the command is written to it when it comes.
 * What must hold, as root and as nobody (test/support/users.ts), each agent a process of that user on the built tool:
 * the command runs as it would have (the same processes in the namespace, the same environment, the same output; what
 * it starts with setsid dies with it); the spare serves one command; its timeout starts with the command; a command
 * it does not fit (another folder, too long) kills it and starts as always; the run's end kills an unused one.
 * (A kill -9 of the agent with a spare up, or at any point of its take: killAgent.process.test.ts, `contained-spare`.)
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handTo } from '../../support/bashAs.js';
import { testUsers } from '../../support/users.js';
import { bashScratchPerTest, liveWithMarker, processes, uniqueBackstop, waitFor, waitUntilEmpty } from './bashHelpers.js';

const DIST_BASH = JSON.stringify(fileURLToPath(new URL('../../../dist/tools/bash/bashTool.js', import.meta.url)));

/**
 * An agent: one contained bash tool; each line of stdin is `{ op: 'prepare', cwd }`, `{ op: 'end' }` (the run's end)
 * or `{ op: 'run', command, cwd, timeout? }`, answered with a line of JSON: a run's result and what it spawned.
 */
const AGENT = `
import { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createBashTool } from ${DIST_BASH};
const original = ChildProcess.prototype.spawn;
let spawned = [];
ChildProcess.prototype.spawn = function (options) {
  spawned.push(options.args.join(' '));
  return original.call(this, options);
};
const tool = createBashTool();
let run = new AbortController();
for await (const line of createInterface({ input: process.stdin })) {
  const { op, cwd, command, timeout } = JSON.parse(line);
  if (op === 'prepare') tool.prepare({ cwd, signal: run.signal });
  if (op === 'end') run.abort();
  if (op !== 'run') { process.stdout.write('{}\\n'); continue; }
  spawned = [];
  const result = await tool.run({ command, ...(timeout ? { timeout } : {}) }, { cwd, signal: new AbortController().signal });
  process.stdout.write(JSON.stringify({ ...result, spawned }) + '\\n');
}`;

interface Answer {
  content: string;
  isError: boolean;
  spawned: string[];
}

let dir: string;
const { marked } = bashScratchPerTest((d) => (dir = d));
let agents: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.kill('SIGKILL');
});

function startAgent(prefix: string[]) {
  const argv = [...prefix, process.execPath, '--input-type=module', '-e', AGENT];
  const child = spawn(argv[0] as string, argv.slice(1), { cwd: '/', env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
  agents.push(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const answers: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => answers.shift()?.(line));
  const ask = <T>(request: object): Promise<T> =>
    new Promise((resolve, reject) => {
      answers.push((line) => resolve(JSON.parse(line) as T));
      child.stdin.write(`${JSON.stringify(request)}\n`, (error) => error && reject(new Error(`${error.message}: ${stderr}`)));
    });
  return {
    child,
    prepare: (cwd: string) => ask<object>({ op: 'prepare', cwd }),
    end: () => ask<object>({ op: 'end' }),
    run: (command: string, cwd: string, timeout?: number) => ask<Answer>({ op: 'run', command, cwd, timeout }),
  };
}

/** The spare shells working in `cwd`: bubblewrap's command line names it (`--chdir`). */
const sparesIn = (cwd: string) => processes().filter((p) => p.state !== 'Z' && p.cmdline.includes('agentloop_s') && p.cmdline.includes(`--chdir ${cwd} `));
/** Waits until the spare's reader runs in its namespace (a process whose command line is the reader's, under that bubblewrap). */
const spareUp = (cwd: string) => waitFor(() => readerUnder(cwd), 20_000);
function readerUnder(cwd: string): boolean {
  const all = processes();
  const bwraps = new Set(all.filter((p) => p.cmdline.startsWith('/usr/bin/bwrap') || p.cmdline.includes(`bwrap --dev-bind`)).filter((p) => p.cmdline.includes(`--chdir ${cwd} `)).map((p) => p.pid));
  return all.some((p) => bwraps.has(p.ppid) && p.cmdline.startsWith('/bin/sh -c { IFS= read -r agentloop_s'));
}

describe.each(testUsers())('the spare shell, as $name', { timeout: 60_000 }, (user) => {
  let work: string;
  beforeEach((ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    work = join(dir, 'work');
    mkdirSync(work);
    handTo(user, dir);
  });

  it('runs the first command as it would have run; the next command starts its own', async () => {
    const agent = startAgent(user.prefix);
    const marker = marked();
    const command = `setsid sleep ${marker} & echo "a  b\\\\c"; env | sort | md5sum; ps -e -o pid=,ppid=,comm= | head -n 3; printf 'x\\n'\n`;
    await agent.prepare(work);
    await spareUp(work);
    const first = await agent.run(command, work);
    const second = await agent.run(command, work);
    expect(first.spawned).toEqual([]);
    expect(second.spawned).toEqual([expect.stringContaining('bwrap')]);
    expect(first).toMatchObject({ isError: false });
    // The same output: the namespace's first processes (pid, parent, program), the environment, the bytes.
    expect(first.content).toBe(second.content);
    // bubblewrap's init, the command's shell, the backstop's sleeper (its fork, before the shell's exec).
    expect(first.content).toMatch(/^a {2}b\\c\n[0-9a-f]{32} {2}-\n +1 +0 bwrap\n +2 +1 bash\n +3 +2 sh\nx\n?$/);
    expect(await waitUntilEmpty(() => liveWithMarker(marker))).toEqual([]);
    expect(sparesIn(work)).toEqual([]);
  });

  it("the command's timeout starts with the command, not with the spare", async () => {
    const agent = startAgent(user.prefix);
    await agent.prepare(work);
    await spareUp(work);
    // Longer than the backstop of a 1 s timeout (2 s): started with the spare, it would have killed it (then the command spawns).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await agent.run('sleep 0.3; echo in-time', work, 1_000)).toMatchObject({ content: 'in-time', isError: false, spawned: [] });
  });

  it("the backstop's sleeper of the command in the spare runs beside it and ends with it", async () => {
    const agent = startAgent(user.prefix);
    const { timeout, sleepers, waitCommand } = uniqueBackstop();
    await agent.prepare(work);
    await spareUp(work);
    expect(await agent.run(waitCommand, work, timeout)).toMatchObject({ content: 'seen', isError: false, spawned: [] });
    expect(await waitUntilEmpty(sleepers)).toEqual([]);
  });

  it("a stopped agent's command in the spare is killed at its timeout by the backstop", async () => {
    const agent = startAgent(user.prefix);
    const marker = marked();
    await agent.prepare(work);
    await spareUp(work);
    void agent.run(`touch started; sleep ${marker}; touch late`, work, 5_000).catch(() => undefined);
    const sleeping = () => liveWithMarker(marker).filter((p) => p.cmdline.startsWith('sleep '));
    await waitFor(() => existsSync(join(work, 'started')) && sleeping().length === 1, 20_000);
    // In the spare: the command's shell is the child of the spare's bubblewrap (its command line holds the reader's).
    const shell = processes().find((p) => p.cmdline === `bash -c touch started; sleep ${marker}; touch late`);
    expect(processes().find((p) => p.pid === shell?.ppid)?.cmdline).toContain('agentloop_s');
    agent.child.kill('SIGSTOP');
    // The agent's timer cannot fire; the sleeper in the namespace fires a second after it would have.
    expect(await waitUntilEmpty(sleeping, 30_000)).toEqual([]);
    expect(existsSync(join(work, 'late'))).toBe(false);
  });

  it('a command it does not fit (another folder, over 4 KB) kills the spare and starts as always', async () => {
    const agent = startAgent(user.prefix);
    const other = join(dir, 'other');
    mkdirSync(other);
    handTo(user, other);
    await agent.prepare(work);
    await spareUp(work);
    const elsewhere = await agent.run('pwd', other);
    expect(elsewhere).toMatchObject({ content: other, isError: false, spawned: [expect.stringContaining(`--chdir ${other} `)] });
    expect(await waitUntilEmpty(() => sparesIn(work))).toEqual([]);
    const fresh = startAgent(user.prefix);
    await fresh.prepare(work);
    await spareUp(work);
    expect(await fresh.run(`echo ${'y'.repeat(5000)} | wc -c`, work)).toMatchObject({ content: '5001', isError: false, spawned: [expect.stringContaining('bwrap')] });
    expect(await waitUntilEmpty(() => sparesIn(work))).toEqual([]);
  });

  it("an unused spare is killed at the run's end", async () => {
    const agent = startAgent(user.prefix);
    await agent.prepare(work);
    await spareUp(work);
    await agent.end();
    expect(await waitUntilEmpty(() => sparesIn(work))).toEqual([]);
  });
});
