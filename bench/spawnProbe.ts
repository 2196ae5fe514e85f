/**
 * Records when each child process of this process is spawned, by wrapping
 * `ChildProcess.prototype.spawn`, which every way of starting a process goes through (spawn,
 * execFile, fork, execa). It returns once the child has exec'd its program (libuv waits for the
 * exec), so its return time is the process start.
 */
import { ChildProcess } from 'node:child_process';
import { now } from './stats.js';

export interface SpawnRecord {
  file: string;
  args: readonly string[];
  /** When the spawn began. */
  calledAt: number;
  /** When it returned: the child runs its program. */
  startedAt: number;
}

export const spawns: SpawnRecord[] = [];
let installed = false;

export function installSpawnProbe(): void {
  if (installed) return;
  installed = true;
  const proto = ChildProcess.prototype as unknown as { spawn: (options: { file?: string; args?: string[] }) => unknown };
  const original = proto.spawn;
  proto.spawn = function (this: ChildProcess, options) {
    const calledAt = now();
    try {
      return original.call(this, options);
    } finally {
      spawns.push({ file: String(options?.file), args: options?.args ?? [], calledAt, startedAt: now() });
    }
  };
}
