/**
 * A point at which a test can kill the CLI with SIGKILL, chosen from outside the process:
 * `AGENTLOOP_TEST_PAUSE_AT_RECORD=N` makes the transcript writer stop the process dead (the whole
 * thread blocks) right after the write that holds record N (counted from 1 in this process), or,
 * with `N-torn`, after writing only the first half of record N's line; `after:TEXT`, right after the
 * write that holds the first record whose line contains TEXT (a record of a kind, of a call: e.g.
 * `after:"type":"tool_start","block":{"type":"tool_use","id":"toolu_A1"`). It then says so on stderr
 * (`agentloop: paused at record N`, or `… at record after:TEXT`) and waits to be killed. Nothing else
 * reads the variable; a value that is not of that form is ignored.
 */
import { writeSync } from 'node:fs';

export type CrashPoint = { record: number; torn: boolean; after?: undefined } | { after: string; record?: undefined; torn: false };

export function crashPointOf(env: NodeJS.ProcessEnv = process.env): CrashPoint | undefined {
  const value = env.AGENTLOOP_TEST_PAUSE_AT_RECORD ?? '';
  if (value.startsWith('after:') && value.length > 'after:'.length) return { after: value.slice('after:'.length), torn: false };
  const match = /^(\d+)(-torn)?$/.exec(value);
  if (!match) return undefined;
  const record = Number(match[1]);
  return record >= 1 ? { record, torn: match[2] !== undefined } : undefined;
}

/** The index in `lines` (a write after `before` lines) of the record the point falls on, if it falls in this write. */
export function pauseIndex(point: CrashPoint, before: number, lines: readonly string[]): number | undefined {
  if (point.after !== undefined) {
    const index = lines.findIndex((line) => line.includes(point.after));
    return index >= 0 ? index : undefined;
  }
  return before < point.record && before + lines.length >= point.record ? point.record - before - 1 : undefined;
}

/** Announces the pause and blocks the thread for good: only a signal ends the process now. */
export function pauseForever(point: CrashPoint): never {
  writeSync(2, `agentloop: paused at record ${point.after !== undefined ? `after:${point.after}` : point.record}${point.torn ? ' (torn)' : ''}\n`);
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (;;) Atomics.wait(cell, 0, 0);
}
