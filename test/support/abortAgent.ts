/**
 * An agent of the abort tests (test/tools/bash/bashAbort.process.test.ts): a process of the user's own (test/support/users.ts)
 * that holds one command runner of the bash tool (src/tools/bash/run/) and runs one command per line of stdin, aborting
 * it at the point the line names; each ending comes back as a line of JSON once the runner has answered. The runner
 * is the built one (dist/, which vitest's global setup builds from src/ first), as test/support/bashAs.ts runs the tool.
 */
import { fileURLToPath } from 'node:url';
import type { RunEnding } from '../../src/tools/bash/run/runner.js';
import { startLineAgent, type LineAgent } from './lineAgent.js';

export type RunnerName = 'plain' | 'contained' | 'unshare' | 'sandboxed';

/**
 * When the abort comes: `before` the run is asked for (the signal already aborted); `spawned`, in the call that says
 * the process was started; `{ afterMs }` that long after it (bubblewrap and unshare still setting up the namespace);
 * `running`, once a process whose command line starts with `running` is seen (the command itself runs); `output`,
 * at the first output of the command; `never`: the command runs to its end.
 */
export type AbortPoint = 'before' | 'spawned' | { afterMs: number } | { running: string } | 'output' | 'never';

export interface AbortCase {
  command: string;
  cwd: string;
  at: AbortPoint;
}

/** The agent: its runner's processes are its children; each ending comes with what the command wrote. */
export type AbortAgent = LineAgent<AbortCase, RunEnding & { output: string }>;

const run = (name: string) => JSON.stringify(fileURLToPath(new URL(`../../dist/tools/bash/run/${name}.js`, import.meta.url)));

/** The agent's program: its runner named by argv[1]; one case a line, one ending a line, in order. */
const AGENT = `
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { plainRunner } from ${run('plain')};
import { containedRunner } from ${run('contained')};
import { unshareRunner } from ${run('unshare')};
import { sandboxRunner } from ${run('sandbox')};
import { backstopPrograms, findExecutable } from ${run('programs')};
const path = process.env.PATH;
const [bwrap, timeout, unshare, setpriv] = ['bwrap', 'timeout', 'unshare', 'setpriv'].map((p) => findExecutable(p, path));
const runners = {
  plain: () => plainRunner(timeout, setpriv),
  contained: () => containedRunner(bwrap, backstopPrograms(path)),
  unshare: () => unshareRunner({ unshare, setpriv, timeout }),
  sandboxed: () => sandboxRunner({ bwrap, backstop: backstopPrograms(path), env: () => process.env, reveal: () => [] }),
};
const runner = runners[process.argv[1]]();
const seen = (start) => readdirSync('/proc').some((p) => {
  try { return /^[0-9]+$/.test(p) && readFileSync('/proc/' + p + '/cmdline', 'utf8').replaceAll('\\0', ' ').startsWith(start); } catch { return false; }
});
function whenRunning(start, abort) {
  const look = () => (seen(start) ? abort() : setTimeout(look, 5));
  look();
}
for await (const line of createInterface({ input: process.stdin })) {
  const { command, cwd, at } = JSON.parse(line);
  const controller = new AbortController();
  const abort = () => controller.abort();
  const chunks = [];
  if (at === 'before') abort();
  const ending = await runner.run({
    command, cwd, env: { PATH: path }, timeoutMs: 60_000, signal: controller.signal,
    onData: (chunk) => { chunks.push(chunk); if (at === 'output') abort(); },
    onSpawned: () => {
      if (at === 'spawned') abort();
      else if (at.afterMs !== undefined) setTimeout(abort, at.afterMs);
      else if (at.running !== undefined) whenRunning(at.running, abort);
    },
  });
  process.stdout.write(JSON.stringify({ ...ending, output: Buffer.concat(chunks).toString('utf8') }) + '\\n');
}`;

/** Starts the agent of `runner` as the user `prefix` names (test/support/users.ts). */
export function startAbortAgent(prefix: string[], runner: RunnerName): AbortAgent {
  return startLineAgent(prefix, AGENT, runner, prefix.length === 0 ? process.env.HOME : '/nonexistent');
}
