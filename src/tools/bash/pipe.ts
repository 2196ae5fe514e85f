/**
 * The pipe a command writes its stdout and stderr to.
 *
 * Node's `stdio: 'pipe'` gives the child a UNIX socket, not a pipe: opening `/dev/stdout` or
 * `/dev/stderr` (`echo x > /dev/stderr`, `tee /dev/stderr`) then fails with "No such device or
 * address". Node cannot make an anonymous pipe, so we make a FIFO, open both ends and remove it
 * at once: the child gets the write end as fd 1 and fd 2 (one open file, so the two streams
 * interleave in write order) and we read the other end.
 *
 * `mkfifo` is a process to start (~15 ms here), so the next pipe is made ahead of time while the
 * current command runs.
 */
import { execFile } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface OutputPipe {
  /** The read end, as a stream. */
  reader: Socket;
  /** The write end, to give the child; close it in the parent once the child is spawned. */
  writeFd: number;
}

export async function openOutputPipe(): Promise<OutputPipe> {
  const next = spare ?? makePipe();
  spare = makePipe();
  spare.catch(() => undefined); // reported when used
  const { readFd, writeFd } = await next;
  return { reader: new Socket({ fd: readFd, readable: true, writable: false }), writeFd };
}

/** Open file descriptors only: nothing is left on disk, whenever the process ends. */
let spare: Promise<{ readFd: number; writeFd: number }> | undefined;

async function makePipe(): Promise<{ readFd: number; writeFd: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'agentloop-pipe-'));
  try {
    const path = join(dir, 'out');
    await execFileAsync('mkfifo', ['-m', '600', path]);
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
    await rm(dir, { recursive: true, force: true });
  }
}
