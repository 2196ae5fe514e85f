/**
 * Opening the files of a sessions folder that may be another user's: root going on with a user's
 * session (`sudo -E agentloop --continue`), or runs of several users in one shared home. Whoever
 * can write the folder can put anything at a session's paths, so a file is opened only if it is
 * what it should be: no symbolic link is followed (a lock file or transcript linked to
 * /etc/shadow would be written through, as root), and nothing but a regular file of one link is
 * written (a hard link to a file of root's would be too). A file that root creates in a folder of
 * another user's is given to that user, so that a lock left by root's `kill -9` blocks nobody and
 * the transcript stays theirs to go on with.
 */
import { closeSync, constants, fchownSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** A session's path holds what agentloop will not write through: the message says what and where. */
export class UnsafeSessionFileError extends Error {
  override readonly name = 'UnsafeSessionFileError';
}

const { O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_RDWR, O_WRONLY } = constants;

/** How a session file is opened: a lock file (made if missing), a new transcript, an existing one to append to. */
export type SessionFileUse = 'lock' | 'create' | 'append';

const FLAGS: Record<SessionFileUse, number> = {
  lock: O_RDWR | O_CREAT | O_NOFOLLOW,
  create: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
  append: O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW,
};

/**
 * Opens `path` for `use` (mode 0600 when it is made), or throws `UnsafeSessionFileError` when it
 * is a symbolic link, not a regular file, or a file with other names (hard links). Other errors
 * (`EEXIST` for `create`, `EACCES`, ...) are thrown as they are.
 */
export function openSessionFile(path: string, use: SessionFileUse): number {
  let fd: number;
  try {
    fd = openSync(path, FLAGS[use], 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new UnsafeSessionFileError(`${path} is a symbolic link: agentloop does not write through it`);
    if (code === 'EISDIR') throw new UnsafeSessionFileError(`${path} is a directory, where the session's ${use === 'lock' ? 'lock file' : 'transcript'} goes: remove it to go on with the session`);
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UnsafeSessionFileError(`${path} is not a regular file: agentloop does not write to it`);
    if (stat.nlink > 1) throw new UnsafeSessionFileError(`${path} has ${stat.nlink} names (hard links): agentloop does not write to it`);
    if (stat.uid === 0 && process.getuid?.() === 0) giveToFolderOwner(fd, path);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Root's file in another user's folder becomes that user's (their later runs can open it). */
function giveToFolderOwner(fd: number, path: string): void {
  const folder = statSync(dirname(path));
  if (folder.uid !== 0) fchownSync(fd, folder.uid, folder.gid);
}

/** Whether the file open at `fd` is empty or ends with a newline (a torn last line does not): the transcript's and the mirror's check before appending. */
export function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}
