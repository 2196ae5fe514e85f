/**
 * Reading a file that may be anything (a huge file, `/dev/zero`, a pipe from `<(...)`) without holding more than a
 * bound: the text when it fits, else FileTooLargeError, one line that says the bound.
 */
import { closeSync, openSync, readSync } from 'node:fs';

export class FileTooLargeError extends Error {
  override readonly name = 'FileTooLargeError';
  readonly code = 'EFBIG';
}

const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** The UTF-8 text of `path`, read up to `bound` bytes; more throws FileTooLargeError; other errors as fs throws them. */
export function readTextUpTo(path: string, bound: number): string {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(1024 * 1024, bound + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(read === chunk.length ? chunk : chunk.subarray(0, read));
      total += read;
      if (total > bound) throw new FileTooLargeError(`${path} is over ${mb(bound)}, more than agentloop reads of such a file`);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
