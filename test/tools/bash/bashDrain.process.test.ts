/**
 * The end of a command's output: after the shell exits, the pipe is read until it is silent (an escaped descendant
 * may hold it). A timer measures the silence, and a timer can come due while the event loop was busy elsewhere,
 * before the loop read what was already waiting in the pipe: that output must not be lost.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcessGroup } from '../../../src/tools/bash/run/process.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Keeps the event loop busy, as a process running many agents at once can. */
function busyUntil(done: () => boolean, thenMs: number): void {
  while (!done()) {
    // spin
  }
  const end = Date.now() + thenMs;
  while (Date.now() < end) {
    // spin
  }
}

describe('the drain after the shell exits', () => {
  it('reads output that waited in the pipe while the loop was busy past the silence timer', async () => {
    dir = mkdtempSync(join(tmpdir(), 'agentloop-drain-'));
    const marker = join(dir, 'written');
    // The shell exits at once; a descendant in a session of its own (outside the group that is killed at the exit)
    // writes a little later, then leaves a marker. No containment here: runInProcessGroup alone.
    // The shell waits until the descendant has left its group (it says so with a file): killed in the group at the
    // exit, it would never write (on a loaded machine it had not always started by then).
    const started = join(dir, 'started');
    const command = `setsid sh -c 'touch ${started}; sleep 0.2; echo late-output; touch ${marker}' & while [ ! -e ${started} ]; do sleep 0.01; done; echo early`;
    let output = '';
    let exitSeen = false;
    const ending = runInProcessGroup({
      argv: ['bash', '-c', command],
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      onData: (chunk) => {
        output += chunk.toString();
        // Once "early" is read the shell is about to exit: block the loop until the late output is in the pipe and
        // the 300 ms silence timer (armed at the exit) is overdue.
        if (!exitSeen && output.includes('early')) {
          exitSeen = true;
          setTimeout(() => busyUntil(() => existsSync(marker), 600), 50);
        }
      },
    });
    const result = await ending;
    expect(result.kind).toBe('exit');
    expect(output).toContain('early');
    expect(output).toContain('late-output');
  });
});
