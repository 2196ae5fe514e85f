import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { cliProjectPerTest, type CliProject, type CliProjectOptions } from './project.js';

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 10_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The transcripts under `home`, as text, by file name. */
export function transcripts(home: string): Map<string, string> {
  const dir = join(home, 'sessions');
  const out = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) if (name.endsWith('.jsonl')) out.set(name, readFileSync(join(dir, name), 'utf8'));
  return out;
}

/**
 * Kills, by process group id, the tool processes a test left behind: a process killed with
 * SIGKILL cannot stop the commands its bash tool started (they run in their own process groups).
 * Only groups whose leader's command line contains `marker` (unique to the test) are touched.
 */
export function killGroupsMarked(marker: string): number[] {
  const killed: number[] = [];
  // An empty marker (a test whose setup failed before it drew one) is in every command line: it would kill every
  // bash on the machine, the test runner's own shell and other sessions' included.
  if (marker === '') return killed;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmdline.includes(marker) || !cmdline.startsWith('bash')) continue;
    const pid = Number(entry);
    try {
      process.kill(-pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // already gone
    }
  }
  return killed;
}

/**
 * A CLI project per test (cliProjectPerTest) and a marker unique to the test, for the commands
 * its bash tool runs; `use` is given both. After the test the process groups marked with it are
 * killed (killGroupsMarked: a CLI killed with SIGKILL leaves them behind), then the project closes.
 */
export function markedCliProjectPerTest(
  name: string,
  use: (project: CliProject, marker: string) => void,
  options: CliProjectOptions = {},
): void {
  let marker = '';
  cliProjectPerTest(
    name,
    (project) => {
      marker = `m${randomUUID().slice(0, 8)}`;
      use(project, marker);
    },
    { ...options, beforeClose: () => killGroupsMarked(marker) },
  );
}
