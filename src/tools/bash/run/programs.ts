/**
 * The programs a way of running commands is made of, looked up on the PATH the commands get: bubblewrap, util-linux's
 * `unshare` and `setpriv`, coreutils' `timeout`. A lookup is a few `access` calls: no process is started.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findExecutable(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The backstop fires this long after the agent's own timer should have. */
const BACKSTOP_GRACE_MS = 1000;

/**
 * `timeout -s KILL SECONDS`, to go before the shell inside a namespace: the kernel's clock kills the command a second
 * after its timeout even when the agent cannot (stopped, its event loop blocked). Nothing when coreutils' timeout is
 * not on the PATH.
 */
export function backstop(timeoutBin: string | undefined, timeoutMs: number): string[] {
  if (timeoutBin === undefined) return [];
  return [timeoutBin, '-s', 'KILL', `${(timeoutMs + BACKSTOP_GRACE_MS) / 1000}s`];
}

/** Whether this process runs as root (then a command would have root's capabilities unless they are dropped). */
export function isRoot(): boolean {
  return process.geteuid?.() === 0;
}
