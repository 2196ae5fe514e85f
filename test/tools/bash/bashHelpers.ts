import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { ToolContext } from '../../../src/core/tool.js';

/** A fresh temporary directory, removed by the returned cleanup. */
export function makeTempDir(prefix = 'agentloop-bash-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function context(cwd: string, signal: AbortSignal = new AbortController().signal): ToolContext {
  return { cwd, signal };
}

export { killMarked, liveWithMarker, processes, type ProcInfo } from '../../support/processes.js';
import { killMarked, processes, type ProcInfo } from '../../support/processes.js';

/** Live (non-zombie) processes of a process group. */
export function liveMembers(pgid: number): ProcInfo[] {
  return processes().filter((p) => p.pgrp === pgid && p.state !== 'Z');
}

/**
 * Waits until `check` returns an empty list; returns what is left at the deadline. SIGKILL is
 * delivered asynchronously, so a dying process may be visible for a moment.
 */
export async function waitUntilEmpty<T>(check: () => T[], deadlineMs = 2000): Promise<T[]> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const left = check();
    if (left.length === 0 || Date.now() > end) return left;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Polls until `predicate` holds (for waiting on a file a command writes). */
export async function waitFor(predicate: () => boolean, deadlineMs = 5000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error('waitFor: condition not met before the deadline');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A timeout of the bash tool unique to one test, and its backstop's sleepers (src/tools/bash/run/programs.ts
 * namespaceBackstop: `sleep SECONDS` in the command's namespace), found by their command line; `waitCommand`, a
 * command that ends once its own namespace shows its sleeper.
 */
export function uniqueBackstop(): { timeout: number; sleepers: () => ProcInfo[]; waitCommand: string } {
  const timeout = 200_000 + Math.floor(Math.random() * 100_000);
  const line = `sleep ${(timeout + 1000) / 1000}s`;
  return {
    timeout,
    sleepers: () => processes().filter((p) => p.state !== 'Z' && p.cmdline.endsWith(line)),
    waitCommand: `until ps -e -o args= | grep -q '${line}$'; do sleep 0.05; done; echo seen`,
  };
}

/** A marker unique to one test, to find its processes by command line. */
export function uniqueSleep(): string {
  return `${1000 + Math.floor(Math.random() * 1000)}.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}

/**
 * For each test of the file: a fresh temporary directory (given to `use`, to set the file's
 * variable), and `marked()`, a new sleep marker (uniqueSleep). After the test, every process whose
 * command line holds one of the test's markers is killed and the directory removed.
 */
export function bashScratchPerTest(use: (dir: string) => void): { marked: () => string } {
  const markers: string[] = [];
  let cleanup: (() => void) | undefined;
  beforeEach(() => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    use(temp.dir);
  });
  afterEach(() => {
    for (const m of markers.splice(0)) killMarked(m);
    cleanup?.();
    cleanup = undefined;
  });
  return {
    marked: () => {
      const m = uniqueSleep();
      markers.push(m);
      return m;
    },
  };
}
