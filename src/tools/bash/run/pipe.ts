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
 * is removed when its batch is used up, and at exit; batches of processes that were killed are
 * swept away by the next process that makes one.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { closeSync, constants, openSync, readdirSync, unlinkSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExitFirst, forgetAtExit, removeAtExit, removeQuietly } from './atExit.js';

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

/** Removes batches left behind by processes that were killed (their pid is in the name). */
function sweepDeadBatches(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = /^agentloop-pipe-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    removeQuietly(join(tmpdir(), name));
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

let swept = false;

async function makeBatch(): Promise<void> {
  if (!swept) {
    swept = true;
    sweepDeadBatches();
  }
  const dir = await mkdtemp(join(tmpdir(), `agentloop-pipe-${process.pid}-`));
  removeAtExit(dir);
  const paths = Array.from({ length: BATCH }, (_, i) => join(dir, `out${i}`));
  try {
    await mkfifo(paths);
  } catch (err) {
    dropDir(dir);
    throw err;
  }
  const batch: Batch = { dir, unused: BATCH };
  for (const path of paths) ready.push({ path, batch });
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
  forgetAtExit(dir);
  removeQuietly(dir);
}

async function takeFifo(): Promise<Fifo> {
  // Several commands may wait for the same batch; whoever finds it used up waits for another.
  while (ready.length === 0) await refill();
  const fifo = ready.shift() as Fifo;
  if (ready.length < LOW_WATER) refill().catch(() => undefined); // a failure is reported to whoever waits next
  return fifo;
}

/** Makes a batch of FIFOs now unless enough are ready, so that the next command need not wait. */
export function prepareFifos(): void {
  if (ready.length < LOW_WATER) refill().catch(() => undefined); // a failure is reported to whoever waits next
}

export async function openOutputPipe(): Promise<OutputPipe> {
  const { path, batch } = await takeFifo();
  try {
    // Non-blocking, or the open would wait for a writer; the write end then opens at once.
    // The write end stays blocking: the child must not see EAGAIN when the pipe is full.
    const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      return { readFd, writeFd: openSync(path, constants.O_WRONLY) };
    } catch (err) {
      closeSync(readFd);
      throw err;
    }
  } finally {
    // Open file descriptors only from here on: nothing of this pipe is left on disk.
    unlinkSync(path);
    if (--batch.unused === 0) dropDir(batch.dir);
  }
}

/**
 * A pipe that only this process holds the write end of (lifeline.ts): both ends blocking, the write end opened first
 * (read and write, so that neither open waits for the other), both close-on-exec as Node opens every file.
 */
export async function openLifelinePipe(): Promise<OutputPipe> {
  const { path, batch } = await takeFifo();
  try {
    const writeFd = openSync(path, constants.O_RDWR);
    try {
      return { readFd: openSync(path, constants.O_RDONLY), writeFd };
    } catch (err) {
      closeSync(writeFd);
      throw err;
    }
  } finally {
    unlinkSync(path);
    if (--batch.unused === 0) dropDir(batch.dir);
  }
}

/** The read end as a stream; destroying it closes the descriptor. */
export function pipeReader(readFd: number): Socket {
  return new Socket({ fd: readFd, readable: true, writable: false });
}
