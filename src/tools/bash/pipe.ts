/**
 * The pipe a command writes its stdout and stderr to.
 *
 * Node's `stdio: 'pipe'` gives the child a UNIX socket, not a pipe: opening `/dev/stdout` or
 * `/dev/stderr` (`echo x > /dev/stderr`, `tee /dev/stderr`) then fails with "No such device or
 * address". Node cannot make an anonymous pipe, so we make a FIFO, open both ends and remove it
 * at once: the child gets the write end as fd 1 and fd 2 (one open file, so the two streams
 * interleave in write order) and we read the other end.
 *
 * `mkfifo` is a process to start (~15 ms here, and starting it blocks the event loop), so FIFOs
 * are made in batches: one `mkfifo` call makes the next BATCH of them in a private directory
 * (mode 0700), ahead of time; each command opens one and unlinks it at once. The directory is
 * removed when the batch is used up, and at exit; batches of processes that were killed are
 * swept away by the next process that makes one.
 */
import { execFile } from 'node:child_process';
import { closeSync, constants, openSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** FIFOs made per `mkfifo` call. */
const BATCH = 16;

export interface OutputPipe {
  /** The read end, as a stream. */
  reader: Socket;
  /** The write end, to give the child; close it in the parent once the child is spawned. */
  writeFd: number;
}

interface Batch {
  dir: string;
  paths: string[];
}

let current: Promise<Batch> | undefined;
let next: Promise<Batch> | undefined;
const liveDirs = new Set<string>();
process.once('exit', () => {
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
});

/** Removes batches left behind by processes that were killed (their pid is in the name). */
function sweepDeadBatches(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = /^agentloop-pipe-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
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

async function makeBatch(): Promise<Batch> {
  if (!swept) {
    swept = true;
    sweepDeadBatches();
  }
  const dir = await mkdtemp(join(tmpdir(), `agentloop-pipe-${process.pid}-`));
  liveDirs.add(dir);
  const paths = Array.from({ length: BATCH }, (_, i) => join(dir, `out${i}`));
  try {
    await execFileAsync('mkfifo', ['-m', '600', ...paths]);
  } catch (err) {
    dropDir(dir);
    throw err;
  }
  return { dir, paths };
}

function dropDir(dir: string): void {
  liveDirs.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * An unused FIFO of a batch; the next batch is started while this one still has some left.
 * `last` says it was the batch's last one: whoever opens it removes the batch's directory.
 */
async function takeFifo(): Promise<{ path: string; dir: string; last: boolean }> {
  for (;;) {
    current ??= next ?? makeBatch();
    next = undefined;
    const batch = current;
    let taken: Batch;
    try {
      taken = await batch;
    } catch (err) {
      if (current === batch) current = undefined; // try again with a fresh batch next time
      throw err;
    }
    const path = taken.paths.shift();
    if (taken.paths.length < BATCH / 2 && next === undefined && current === batch) {
      next = makeBatch();
      next.catch(() => undefined); // reported when used
    }
    const last = taken.paths.length === 0;
    if (last && current === batch) current = undefined;
    if (path !== undefined) return { path, dir: taken.dir, last };
  }
}

export async function openOutputPipe(): Promise<OutputPipe> {
  const { path, dir, last } = await takeFifo();
  try {
    // Non-blocking, or the open would wait for a writer; the write end then opens at once.
    // The write end stays blocking: the child must not see EAGAIN when the pipe is full.
    const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      return { reader: new Socket({ fd: readFd, readable: true, writable: false }), writeFd: openSync(path, constants.O_WRONLY) };
    } catch (err) {
      closeSync(readFd);
      throw err;
    }
  } finally {
    // Open file descriptors only from here on: nothing of this pipe is left on disk.
    unlinkSync(path);
    if (last) dropDir(dir);
  }
}
