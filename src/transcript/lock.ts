/**
 * One writer per session. A run that writes a session holds a lock on `sessions/<id>.lock`, beside
 * its transcript, from before its first write until it closes the session.
 *
 * The lock is the kernel's: an open file description lock (`fcntl(F_OFD_SETLK)`, through the
 * prebuilt addon of `fs-native-extensions`). The kernel drops it when the process ends, however it
 * ends (`kill -9` included), so a lock left behind never blocks, and a process that later gets the
 * same pid holds nothing. Two runs in one process conflict too (each opens the file anew). The
 * holder writes its pid, start time and command line into the file, so that a run refused can say
 * who holds the session; `sessions` and the viewer read that (checked against the live process's
 * start time in /proc, so a reused pid never shows as running) without touching the lock.
 *
 * On release the holder removes the file while it still holds the lock; a run that locked the file
 * just then finds it no longer at the path and starts again. Where the addon cannot load (a platform
 * it has no build for), the file's pid and start time are the lock: a live holder refuses, a dead one
 * is replaced (two runs started in the same instant could then both go on; the README says so).
 */
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { outOfFiles } from '../core/openFiles.js';
import { holderAlive, holderOf, parseHolder, procStartOf, type LockHolder } from './holder.js';
import { openSessionFile, UnsafeSessionFileError } from './sessionFile.js';

export { describeHolder, type LockHolder } from './holder.js';

/** A session's lock, held until `release()` (or the end of the process). */
export interface SessionLock {
  /** The lock file. */
  readonly path: string;
  release(): void;
}

/** The session is being written by another run (`holder`, when it could be read). */
export class SessionBusyError extends Error {
  override readonly name = 'SessionBusyError';
  constructor(
    readonly transcript: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(`session ${idOf(transcript)} is in use by ${holder ? `process ${holder.pid}` : 'another process'}`);
  }
}

interface NativeLocks {
  tryLock(fd: number): boolean;
}

let native: NativeLocks | null | undefined;

/** The kernel's locks, or `null` where the addon does not load. */
function nativeLocks(): NativeLocks | null {
  if (native === undefined) {
    const require = createRequire(import.meta.url);
    try {
      native = prebuiltLocks(require) ?? (require('fs-native-extensions') as NativeLocks);
    } catch {
      native = null;
    }
  }
  return native;
}

interface LockBinding {
  tryLock(fd: number, offset: number, length: number, exclusive: boolean): void;
}

/**
 * The addon's prebuilt binary for this platform, loaded by its path, with the package's `tryLock` over it (EAGAIN:
 * held). The package's own loader (require-addon) finds the same file through three packages of resolver code, about
 * 10 ms of a fresh process's CPU before its first request (bench/engine.ts). Where there is no such file (musl, a
 * platform without a prebuilt), undefined: the package loads as it would.
 */
function prebuiltLocks(require: NodeJS.Require): NativeLocks | undefined {
  if (process.platform === 'linux' && existsSync('/etc/alpine-release')) return undefined;
  const dir = dirname(require.resolve('fs-native-extensions/package.json'));
  const file = join(dir, 'prebuilds', `${process.platform}-${process.arch}`, 'fs-native-extensions.node');
  if (!existsSync(file)) return undefined;
  const binding = require(file) as LockBinding;
  return {
    tryLock(fd) {
      try {
        binding.tryLock(fd, 0, 0, true);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return false;
        throw error;
      }
    },
  };
}

/** The lock file of the session whose transcript is `transcript`. */
export function lockPathOf(transcript: string): string {
  return transcript.replace(/\.jsonl$/, '') + '.lock';
}

const idOf = (transcript: string) => /([^/]+?)(\.jsonl)?$/.exec(transcript)?.[1] ?? transcript;

/** Locks the session of `transcript` now, or throws `SessionBusyError` naming the holder. */
export function lockSession(transcript: string): SessionLock {
  const path = lockPathOf(transcript);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const locks = nativeLocks();
  for (;;) {
    const fd = openLockFile(transcript, path);
    let held = false;
    try {
      if (locks ? !locks.tryLock(fd) : holderAlive(holderOf(fd))) throw new SessionBusyError(transcript, holderOf(fd, 100));
      // The previous holder may have removed the file after this run opened it: lock the file at the path.
      if (!samePath(fd, path)) continue;
      ftruncateSync(fd, 0);
      writeSync(fd, `${JSON.stringify(ownHolder())}\n`, 0);
      held = true;
      return heldLock(path, fd);
    } finally {
      if (!held) closeSync(fd);
    }
  }
}

/**
 * The lock file, opened (made if missing) as openSessionFile allows. One this user may not open is
 * another user's (a shared home): held by a run of theirs (/proc/locks says), the session is busy;
 * held by nobody, it is said how to go on.
 */
function openLockFile(transcript: string, path: string): number {
  try {
    return openSessionFile(path, 'lock');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && code !== 'EACCES') throw new UnsafeSessionFileError(`cannot open the session's lock file ${path} (${code}): ${outOfFiles(error) ?? fixFor(code)}`);
    if (code !== 'EACCES') throw error;
    const stat = statSync(path);
    if (kernelLockOn(stat)) throw new SessionBusyError(transcript, undefined);
    throw new UnsafeSessionFileError(`${path} is the lock file of user ${stat.uid}'s session, which no run holds: remove it to go on with the session`);
  }
}

/** What to do about a lock file that cannot be opened. */
function fixFor(code: string): string {
  if (code === 'EROFS') return 'the sessions folder is read-only: set AGENTLOOP_HOME to a folder you can write';
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'the disk is full: free some space';
  if (code === 'ENOTDIR') return 'a file stands where a folder of its path should be: remove it';
  return 'check the sessions folder (AGENTLOOP_HOME) and its permissions';
}

/** Whether any process holds a lock on the file of `stat` (its line in /proc/locks: `... fe:00:2418324 0 EOF`). */
function kernelLockOn(stat: { dev: number; ino: number }): boolean {
  const major = ((stat.dev >> 8) & 0xfff).toString(16).padStart(2, '0');
  const minor = ((stat.dev & 0xff) | ((stat.dev >> 12) & 0xfff00)).toString(16).padStart(2, '0');
  let table = '';
  try {
    table = readFileSync('/proc/locks', 'utf8');
  } catch {
    return true; // no way to tell: taken as held, never as free
  }
  return table.split('\n').some((line) => line.split(/\s+/).includes(`${major}:${minor}:${stat.ino}`));
}

/**
 * Locks the session of `transcript`, waiting while another run holds it (`onWait` is told who, once).
 * Aborting `signal` stops the wait with its reason.
 */
export async function waitForSession(
  transcript: string,
  options: { signal?: AbortSignal; onWait?: (holder: LockHolder | undefined) => void; pollMs?: number } = {},
): Promise<SessionLock> {
  let told = false;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      return lockSession(transcript);
    } catch (error) {
      if (!(error instanceof SessionBusyError)) throw error;
      if (!told) options.onWait?.(error.holder);
      told = true;
    }
    await pause(options.pollMs ?? 100, options.signal);
  }
}

/** The live run that holds the session of `transcript`, if one does (read without taking the lock). */
export function runningHolder(transcript: string): LockHolder | undefined {
  let text: string;
  try {
    text = readFileSync(lockPathOf(transcript), 'utf8');
  } catch {
    return undefined;
  }
  const holder = parseHolder(text);
  return holder && holderAlive(holder) ? holder : undefined;
}

function heldLock(path: string, fd: number): SessionLock {
  let open = true;
  return {
    path,
    release() {
      if (!open) return;
      open = false;
      try {
        if (samePath(fd, path)) unlinkSync(path); // still holding it: a run waiting for it starts again
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** Whether the file at `path` is the one open as `fd`. */
function samePath(fd: number, path: string): boolean {
  const open = fstatSync(fd);
  const now = statSync(path, { throwIfNoEntry: false });
  return now !== undefined && now.ino === open.ino && now.dev === open.dev;
}

/** This process, as a lock file names it. */
function ownHolder(): LockHolder {
  const startedAt = new Date(Date.now() - process.uptime() * 1000).toISOString();
  const start = procStartOf(process.pid);
  const command = commandLine(process.argv);
  return { pid: process.pid, startedAt, ...(start !== undefined ? { start } : {}), ...(command ? { command } : {}) };
}

/** `agentloop ARGS` for the CLI, else the script and its arguments; at most 200 characters. */
function commandLine(argv: readonly string[]): string {
  const [, script = '', ...rest] = argv;
  const name = /cli\/main\.[jt]s$/.test(script) ? 'agentloop' : script;
  const quoted = rest.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg)));
  const line = [name, ...quoted].join(' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
