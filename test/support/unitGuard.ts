/**
 * The unit tier's setup file (vitest.config.ts, project `unit`): a unit test starts no process, no server, no
 * browser and no Restate. Here child_process's spawn/exec/execFile/fork (and their Sync forms) and
 * net.Server's listen (every http, https and net server listens through it) throw, naming the tier a test that
 * needs them belongs to. A browser or restate-server is a process, so they are caught at the spawn.
 * test/house/tiers.test.ts checks that this guard holds.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const HINT =
  'a unit-tier test starts no process, server, browser or Restate: name the file x.process.test.ts ' +
  '(or x.browser.test.ts, x.restate.test.ts) to put it in its tier (README "Tests")';

function refuse(what: string): never {
  throw new Error(`${what} in the unit tier: ${HINT}`);
}

/** The tier runs its files in one process each worker (isolate: false): this file runs before each, and guards once. */
const GUARDED = Symbol.for('agentloop.unitGuard');
const guarded = globalThis as { [GUARDED]?: true };

const NAMES = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
if (!guarded[GUARDED]) {
  guarded[GUARDED] = true;
  for (const name of NAMES) {
    (childProcess as unknown as Record<string, unknown>)[name] = () => refuse(`child_process.${name}`);
  }
  net.Server.prototype.listen = function listen(): never {
    return refuse('a server listening (net.Server.listen)');
  };
  // A signal to a process group (pid 0 or below) from a test whose own setup failed could reach processes far beyond it.
  const kill = process.kill.bind(process);
  process.kill = (pid: number, signal?: string | number) => (pid > 0 ? kill(pid, signal) : refuse(`process.kill(${pid})`));
  syncBuiltinESMExports();
}
