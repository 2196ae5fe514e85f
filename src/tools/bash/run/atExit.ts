/**
 * What this process made for itself in the temporary directory (FIFO batches, saved outputs, the sandbox's empty
 * file, the unshare way's mount table), removed when it exits. Quietly: an exit handler that throws prints a Node stack
 * trace on the user's terminal and changes nothing (`ENOTEMPTY` when something still writes into a folder); what is
 * left behind is swept by the next process where that matters (pipe.ts).
 */
import { rmSync } from 'node:fs';

const paths = new Set<string>();
const beforeRemoval: Array<() => void> = [];
let installed = false;

/** Removes `path` (a file or a folder, with all it holds) when the process exits. */
export function removeAtExit(path: string): void {
  paths.add(path);
  if (installed) return;
  installed = true;
  process.once('exit', removeAll);
}

/** `path` is gone already, or kept: not to be removed at exit. */
export function forgetAtExit(path: string): void {
  paths.delete(path);
}

/** Runs `stop` at exit before anything is removed (e.g. kill a process that still writes into a folder). */
export function atExitFirst(stop: () => void): void {
  beforeRemoval.push(stop);
}

export function removeQuietly(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true, maxRetries: 3, retryDelay: 5 });
  } catch {
    // Left behind: nothing to report it to at exit.
  }
}

function removeAll(): void {
  for (const stop of beforeRemoval) {
    try {
      stop();
    } catch {
      // already stopped
    }
  }
  for (const path of paths) removeQuietly(path);
}
