/**
 * A point at which a test can kill the CLI with SIGKILL, chosen from outside the process:
 * `AGENTLOOP_TEST_PAUSE_AT_RECORD=N` makes the transcript writer stop the process dead (the whole
 * thread blocks) right after the write that holds record N (counted from 1 in this process), or,
 * with `N-torn`, after writing only the first half of record N's line. It then says so on stderr
 * (`agentloop: paused at record N`) and waits to be killed. Nothing else reads the variable; a
 * value that is not of that form is ignored.
 */
import { writeSync } from 'node:fs';

export interface CrashPoint {
  record: number;
  torn: boolean;
}

export function crashPointOf(env: NodeJS.ProcessEnv = process.env): CrashPoint | undefined {
  const match = /^(\d+)(-torn)?$/.exec(env.AGENTLOOP_TEST_PAUSE_AT_RECORD ?? '');
  if (!match) return undefined;
  const record = Number(match[1]);
  return record >= 1 ? { record, torn: match[2] !== undefined } : undefined;
}

/** Announces the pause and blocks the thread for good: only a signal ends the process now. */
export function pauseForever(point: CrashPoint): never {
  writeSync(2, `agentloop: paused at record ${point.record}${point.torn ? ' (torn)' : ''}\n`);
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (;;) Atomics.wait(cell, 0, 0);
}
