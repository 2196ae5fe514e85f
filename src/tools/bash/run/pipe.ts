/**
 * The pipe a command writes its stdout and stderr to.
 *
 * Node's `stdio: 'pipe'` gives the child a UNIX socket, not a pipe: opening `/dev/stdout` or
 * `/dev/stderr` (`echo x > /dev/stderr`, `tee /dev/stderr`) then fails with "No such device or
 * address". Node cannot make an anonymous pipe, so we make a FIFO, open both ends and remove it
 * at once: the child gets the write end as fd 1 and fd 2 (one open file, so the two streams
 * interleave in write order) and we read the other end.
 *
 * `mkfifo` is a process to start, and starting a process costs as much as the command itself
 * (fork + exec, blocking the event loop). So one `mkfifo` call makes BATCH FIFOs in a private
 * directory (mode 0700) ahead of time; each command opens one and unlinks it at once. The next
 * batch is made while LOW_WATER are still unused, so a command rarely waits for one. A directory
 * is removed when its batch is used up. The batches live in the user's private folder (userDir.ts; else in the
 * temporary directory): there, what a process leaves unused at exit, or when it was killed, is taken by the user's next
 * process (spares.ts), whose first command then waits for no `mkfifo`; elsewhere it is removed (batches of killed
 * processes by the next process that makes one).
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { closeSync, constants, fstatSync, openSync, readdirSync, unlinkSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExitFirst, forgetAtExit, removeAtExit, removeQuietly } from './atExit.js';
import { claimSpare, keepSpare } from './spares.js';
import { privateUserDir } from './userDir.js';

/** FIFOs made per `mkfifo` call. */
const BATCH = 64;
/** The next batch is started when this many unused FIFOs are left (more than run in parallel). */
const LOW_WATER = 16;

export interface OutputPipe {
  /** The read end, non-blocking: wrap it with `pipeReader` (after the spawn, which matters more). */
  readFd: number;
  /** The write end, to give the child; close it in the parent once the child is spawned. */
  writeFd: number;
}

interface Batch {
  dir: string;
  /** FIFOs of the batch not opened yet; the directory goes when it reaches 0. */
  unused: number;
}

interface Fifo {
  path: string;
  batch: Batch;
}

/** Made and not yet taken, oldest batch first (so that batches are used up in turn). */
const ready: Fifo[] = [];
/** The batch being made, if any: there is at most one `mkfifo` at a time. */
let making: Promise<void> | undefined;

/** The `mkfifo` of the batch being made: killed at exit, before its folder is removed (it would still be making FIFOs). */
let maker: ChildProcess | undefined;
atExitFirst(() => maker?.kill('SIGKILL'));

/** Where the batches are made: the user's private folder, else the temporary directory (then nothing is kept). */
function batchParent(): { dir: string; keeps: boolean } {
  const own = privateUserDir();
  return own === undefined ? { dir: tmpdir(), keeps: false } : { dir: own, keeps: true };
}

/** Batches left behind by processes that were killed (their pid is in the name): kept as spares, or removed. */
function sweepDeadBatches(parent: { dir: string; keeps: boolean }): void {
  for (const name of readdirSync(parent.dir)) {
    const pid = /^agentloop-pipe-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    const dir = join(parent.dir, name);
    if (parent.keeps) keepSpare(parent.dir, dir, countOf(dir));
    else removeQuietly(dir);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function countOf(dir: string): number {
  try {
    return readdirSync(dir).length;
  } catch {
    return 0;
  }
}

let swept = false;

/** Once per process: what killed processes left, swept (from the private folder at the first claim, on no command's path elsewhere). */
function sweepOnce(parent: { dir: string; keeps: boolean }): void {
  if (swept) return;
  swept = true;
  try {
    sweepDeadBatches(parent);
  } catch {
    // nothing to sweep
  }
}

/** Batches with FIFOs unused, by folder; at exit they are kept for the next process where they can be. */
const live = new Map<string, Batch>();
atExitFirst(() => {
  const parent = batchParent();
  if (!parent.keeps) return;
  for (const batch of live.values()) {
    forgetAtExit(batch.dir);
    keepSpare(parent.dir, batch.dir, batch.unused);
  }
});

async function makeBatch(): Promise<void> {
  const parent = batchParent();
  if (parent.keeps) sweepOnce(parent);
  const dir = await mkdtemp(join(parent.dir, `agentloop-pipe-${process.pid}-`));
  removeAtExit(dir);
  const paths = Array.from({ length: BATCH }, (_, i) => join(dir, `out${i}`));
  try {
    await mkfifo(paths);
  } catch (err) {
    dropDir(dir);
    throw err;
  }
  adopt(dir, paths);
  if (!parent.keeps) setImmediate(() => sweepOnce(parent));
}

/** The FIFOs `paths` of the batch folder `dir`, ready to be taken. */
function adopt(dir: string, paths: string[]): void {
  const batch: Batch = { dir, unused: paths.length };
  live.set(dir, batch);
  for (const path of paths) ready.push({ path, batch });
}

/** Takes a batch an earlier process of this user left (spares.ts); whether there was one. */
function claimSpares(): boolean {
  const parent = batchParent();
  if (!parent.keeps) return false;
  sweepOnce(parent);
  const dir = join(parent.dir, `agentloop-pipe-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  const paths = claimSpare(parent.dir, dir);
  if (paths.length === 0) return false;
  removeAtExit(dir);
  adopt(dir, paths);
  return true;
}

/** Starts making a batch unless one is on its way; resolves when it is ready. */
function refill(): Promise<void> {
  making ??= makeBatch().finally(() => {
    making = undefined;
  });
  return making;
}

function mkfifo(paths: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile('mkfifo', ['-m', '600', ...paths], (err) => {
      if (maker === child) maker = undefined;
      if (err) reject(err);
      else resolve();
    });
    maker = child;
  });
}

function dropDir(dir: string): void {
  live.delete(dir);
  forgetAtExit(dir);
  removeQuietly(dir);
}

async function takeFifo(): Promise<Fifo> {
  // Several commands may wait for the same batch; whoever finds it used up waits for another.
  while (ready.length === 0) if (!claimSpares()) await refill();
  const fifo = ready.shift() as Fifo;
  if (ready.length < LOW_WATER) refill().catch(() => undefined); // a failure is reported to whoever waits next
  return fifo;
}

/** Makes a batch of FIFOs now unless enough are ready, so that the next command need not wait. */
export function prepareFifos(): void {
  if (ready.length === 0 && claimSpares() && ready.length >= LOW_WATER) return;
  if (ready.length < LOW_WATER) refill().catch(() => undefined); // a failure is reported to whoever waits next
}

export function openOutputPipe(): Promise<OutputPipe> {
  // Non-blocking, or the open would wait for a writer; the write end then opens at once.
  // The write end stays blocking: the child must not see EAGAIN when the pipe is full.
  return openNext((path) => {
    const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    return { readFd, writeFd: openOrClose(path, constants.O_WRONLY | constants.O_NOFOLLOW, readFd) };
  });
}

/**
 * A pipe that only this process holds the write end of (lifeline.ts): both ends blocking, the write end opened first
 * (read and write, so that neither open waits for the other), both close-on-exec as Node opens every file.
 */
export function openLifelinePipe(): Promise<OutputPipe> {
  return openNext((path) => {
    const writeFd = openSync(path, constants.O_RDWR | constants.O_NOFOLLOW);
    return { readFd: openOrClose(path, constants.O_RDONLY | constants.O_NOFOLLOW, writeFd), writeFd };
  });
}

/** Opens `path` with `flags`; on failure closes `other` (the end opened before) and throws. */
function openOrClose(path: string, flags: number, other: number): number {
  try {
    return openSync(path, flags);
  } catch (err) {
    closeSync(other);
    throw err;
  }
}

/**
 * Opens the next FIFO's two ends with `open` and unlinks it at once: open file descriptors only from then on, nothing
 * of this pipe left on disk. What is not a FIFO of this user's (a batch is a folder only this user can write to, but a
 * spare was left by another process: spares.ts) is closed and passed over.
 */
async function openNext(open: (path: string) => OutputPipe): Promise<OutputPipe> {
  for (;;) {
    const { path, batch } = await takeFifo();
    let pipe: OutputPipe;
    try {
      pipe = open(path);
    } finally {
      unlinkQuietly(path);
      if (--batch.unused === 0) dropDir(batch.dir);
    }
    const stats = fstatSync(pipe.readFd);
    if (stats.isFIFO() && stats.uid === process.geteuid?.()) return pipe;
    closeSync(pipe.readFd);
    closeSync(pipe.writeFd);
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

/** The read end as a stream; destroying it closes the descriptor. */
export function pipeReader(readFd: number): Socket {
  return new Socket({ fd: readFd, readable: true, writable: false });
}
