/**
 * An agent of the kill -9 tests (test/tools/bash/killAgent.process.test.ts): a process of the user's own (test/support/users.ts)
 * that starts one command with one runner of the bash tool (src/tools/bash/run/), or one stdio MCP server, and kills
 * itself with SIGKILL at the point its case names. The runners are the built ones (dist/), as in abortAgent.ts.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RunnerName } from './abortAgent.js';

/**
 * When the agent dies: `{ afterStartMs }` that long after the command was asked for (the tool's start; 0: at once,
 * before its spawn), `{ afterSpawnMs }` that long after its process was spawned (0: in the call that says so;
 * bubblewrap and unshare still set the namespace up for some ms), `running` once a process whose command line starts
 * with the command is seen; `spare` (the way `contained-spare`) once the spare shell is up, before any command.
 */
export type KillPoint = { afterStartMs: number } | { afterSpawnMs: number } | 'running' | 'spare';

export interface KillCase {
  /**
   * `plain`, `contained`, `unshare`, `sandboxed`: a bash command; `contained-spare`: one run in the spare shell the
   * contained way started ahead (src/tools/bash/run/spare.ts), working in a folder named by the command's marker (its
   * second word), so that the spare carries the marker too; `mcp-…`: an MCP server started that way.
   */
  way: RunnerName | 'contained-spare' | `mcp-${'plain' | 'contained' | 'sandboxed'}`;
  /** The command (for a server: its program and arguments, split on spaces). */
  command: string;
  cwd: string;
  at: KillPoint;
}

const dist = (path: string) => JSON.stringify(fileURLToPath(new URL(`../../dist/${path}.js`, import.meta.url)));

const AGENT = `
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { plainRunner } from ${dist('tools/bash/run/plain')};
import { containedRunner } from ${dist('tools/bash/run/contained')};
import { unshareRunner } from ${dist('tools/bash/run/unshare')};
import { sandboxRunner } from ${dist('tools/bash/run/sandbox')};
import { backstopPrograms, findExecutable } from ${dist('tools/bash/run/programs')};
import { startMcpServers } from ${dist('tools/mcp/servers')};
const { way, command, cwd, at } = JSON.parse(process.argv[1]);
const path = process.env.PATH;
const die = () => process.kill(process.pid, 'SIGKILL');
const later = (ms) => (ms === 0 ? die() : setTimeout(die, ms));
const seen = (start) => readdirSync('/proc').some((p) => {
  try { return /^[0-9]+$/.test(p) && readFileSync('/proc/' + p + '/cmdline', 'utf8').replaceAll('\\0', ' ').startsWith(start); } catch { return false; }
});
const whenRunning = () => (seen(command) ? die() : setTimeout(whenRunning, 2));
// The spare is up once its reader runs, under the bwrap that works in where.
const spareUp = (where) => readdirSync('/proc').some((p) => {
  try {
    if (!/^[0-9]+$/.test(p) || !readFileSync('/proc/' + p + '/cmdline', 'utf8').startsWith('/bin/sh\\0-c\\0{ IFS= read -r agentloop_s')) return false;
    const ppid = readFileSync('/proc/' + p + '/stat', 'utf8').split(') ')[1].split(' ')[1];
    return readFileSync('/proc/' + ppid + '/cmdline', 'utf8').includes('--chdir\\0' + where + '\\0');
  } catch { return false; }
});
setTimeout(die, 20000); // a bound: the point was never reached
if (way.startsWith('mcp-')) {
  const options = way === 'mcp-plain' ? { contain: false } : way === 'mcp-sandboxed' ? { sandbox: {} } : {};
  const [program, ...args] = command.split(' ');
  startMcpServers({ s: { type: 'stdio', command: program, args } }, { cwd, ...options });
  if (at === 'running') whenRunning();
  else later(at.afterStartMs ?? at.afterSpawnMs);
} else {
  const [bwrap, timeout, unshare, setpriv] = ['bwrap', 'timeout', 'unshare', 'setpriv'].map((p) => findExecutable(p, path));
  const runner = {
    plain: () => plainRunner(timeout, setpriv),
    contained: () => containedRunner(bwrap, backstopPrograms(path)),
    'contained-spare': () => containedRunner(bwrap, backstopPrograms(path)),
    unshare: () => unshareRunner({ unshare, setpriv, timeout }),
    sandboxed: () => sandboxRunner({ bwrap, backstop: backstopPrograms(path), env: () => process.env, reveal: () => [] }),
  }[way]();
  const where = way === 'contained-spare' ? join(cwd, command.split(' ')[1]) : cwd;
  if (way === 'contained-spare') {
    mkdirSync(where);
    runner.prepare({ cwd: where, env: { PATH: path }, signal: new AbortController().signal });
    await new Promise((resolve) => { const up = () => (spareUp(where) ? resolve() : setTimeout(up, 2)); up(); });
    if (at === 'spare') die();
  }
  runner.run({
    command, cwd: where, env: { PATH: path }, timeoutMs: 60_000, signal: new AbortController().signal, onData: () => undefined,
    onSpawned: () => {
      if (at.afterSpawnMs !== undefined) later(at.afterSpawnMs);
      else if (at === 'running') whenRunning();
    },
  });
  if (at.afterStartMs !== undefined) later(at.afterStartMs);
}`;

/** Runs the agent of `c` as the user `prefix` names; resolves once it has died, with what it wrote to stderr. */
export function runKillAgent(prefix: string[], c: KillCase): Promise<{ signal: string | null; stderr: string }> {
  const argv = [...prefix, process.execPath, '--input-type=module', '-e', AGENT, JSON.stringify(c)];
  // No HOME of the user's: a slow ~/.bashrc would decide the bwrap probe of choose.ts (mcpStopAgent.ts says why).
  const child = spawn(argv[0] as string, argv.slice(1), { cwd: '/', env: { PATH: process.env.PATH, HOME: '/nonexistent' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (_code, signal) => resolve({ signal, stderr })));
}
