/**
 * A folder of this user's own that outlives the process: what one agent process leaves for the next of the same user
 * (the containment probe's verdict: verdict.ts; FIFOs made ahead: fifoPool.ts). `$XDG_RUNTIME_DIR/agentloop` where the
 * session manager gives the user one (a tmpfs emptied at logout and at boot), else `agentloop-UID` in the temporary
 * directory.
 *
 * Another user must not be able to put anything in it: the temporary directory is everyone's, so a folder of that name
 * may have been made by someone else, or be a link to theirs. It is used only when, looked at without following a
 * link, it is a folder owned by this user that no one else may write to or read (mode 0700: made so when missing);
 * otherwise there is none, and the callers do without (a probe, a `mkfifo`), as on a first run.
 */
import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';

let found: { dir: string | undefined } | undefined;

/** This user's private folder, made if missing; undefined where none can be trusted. Looked for once per process. */
export function privateUserDir(): string | undefined {
  found ??= { dir: look() };
  return found.dir;
}

function look(): string | undefined {
  const uid = process.geteuid?.();
  if (uid === undefined) return undefined;
  const runtime = process.env.XDG_RUNTIME_DIR;
  const candidates = [
    ...(runtime !== undefined && isAbsolute(runtime) && isPrivate(statOf(runtime), uid, 0o022) ? [join(runtime, 'agentloop')] : []),
    join(tmpdir(), `agentloop-${uid}`),
  ];
  for (const dir of candidates) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch {
      // there already (checked below), or cannot be made
    }
    if (isPrivate(statOf(dir), uid, 0o077)) return dir;
  }
  return undefined;
}

function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** A folder (not a link to one) owned by `uid` with none of the `forbidden` mode bits. */
export function isPrivate(stats: Stats | undefined, uid: number, forbidden: number): boolean {
  return stats !== undefined && stats.isDirectory() && stats.uid === uid && (stats.mode & forbidden) === 0;
}
