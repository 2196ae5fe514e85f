/**
 * FIFOs made by one agent process and left for the next of the same user (issue 40), so that a fresh process needs no
 * `mkfifo` process before its first command (pipe.ts makes them in batches of 64, and a run uses a few).
 *
 * A process that exits with FIFOs of a batch unused renames the batch's folder to `agentloop-spare-…` in the user's
 * private folder (userDir.ts: the user's own, mode 0700, so no one else can put a FIFO there); a later process claims a
 * spare by renaming it to a batch folder of its own (a rename happens once: of two processes, one gets it) and takes
 * its FIFOs. A batch of a process that was killed is a spare too. Each FIFO is still unlinked the moment it is opened,
 * and checked to be a FIFO of this user's when it is.
 */
import { readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { removeQuietly } from './atExit.js';

const SPARE = 'agentloop-spare-';
/** A batch with fewer unused FIFOs is removed, not kept (the next process would soon make a batch anyway). */
export const MIN_SPARE = 24;
/** At most this many spare folders are kept in the user's folder. */
const MAX_SPARES = 4;

/** Keeps the batch folder `dir` of `parent` (the user's private folder) as a spare, or removes it. */
export function keepSpare(parent: string, dir: string, unused: number): void {
  try {
    if (unused >= MIN_SPARE && spareNames(parent).length < MAX_SPARES) {
      renameSync(dir, join(parent, `${SPARE}${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`));
      return;
    }
  } catch {
    // not kept: removed below
  }
  removeQuietly(dir);
}

/** Claims a spare of `parent` as the batch folder `dir` (a name of this process's); its FIFOs' paths, or none. */
export function claimSpare(parent: string, dir: string): string[] {
  for (const name of spareNames(parent)) {
    try {
      renameSync(join(parent, name), dir);
    } catch {
      continue; // another process took it first
    }
    try {
      return readdirSync(dir).map((fifo) => join(dir, fifo));
    } catch {
      return [];
    }
  }
  return [];
}

function spareNames(parent: string): string[] {
  try {
    return readdirSync(parent).filter((name) => name.startsWith(SPARE));
  } catch {
    return [];
  }
}
