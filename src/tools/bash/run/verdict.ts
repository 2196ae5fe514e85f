/**
 * The containment probe's verdict, kept for the next process of the same user (issue 40): a fresh agent process that
 * would run bubblewrap once before its first command (the probe: a process of its own, scheduled behind whatever else
 * the machine runs) reads instead that bubblewrap worked here, for this user, since this boot, with this very binary.
 *
 * Only "it worked" is kept, and only as a file in this user's private folder (userDir.ts). So the worst a planted or
 * stale verdict can do is choose bubblewrap where it fails: then the commands fail with bubblewrap's error, and run
 * nowhere else; nothing kept can make a command run uncontained (a refusal is never kept: the next process probes).
 *
 * The verdict holds what it was true of, and counts only while all of it still is: the user and its capabilities, the
 * boot (`/proc/sys/kernel/random/boot_id`), the namespaces this process runs in (another container of the same host),
 * the kernel's switches for user namespaces, the bubblewrap binary (its path, device, inode, size, modification and
 * change times: an upgrade or a replaced file is another binary), and the probe's whole command line (the devices and
 * capabilities it names). Checking it is a few reads of /proc and two `stat`s; the file is opened without following a
 * link and read only when this user owns it and no one else can write it.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateUserDir } from './userDir.js';

/** The kernel's switches that decide whether a namespace may be made (absent ones are part of the key as absent). */
const SWITCHES = [
  '/proc/sys/kernel/unprivileged_userns_clone',
  '/proc/sys/user/max_user_namespaces',
  '/proc/sys/user/max_pid_namespaces',
  '/proc/sys/user/max_mnt_namespaces',
  '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
];
const NAMESPACES = ['user', 'pid', 'mnt'];
/** A verdict's file is small; a larger one is not one of ours. */
const MAX_BYTES = 16_384;

/** What the verdict on running `argv` (the probe's) is true of, as text; undefined where it cannot all be read. */
export function verdictKey(argv: readonly string[]): string | undefined {
  try {
    const bwrap = statSync(argv[0] as string);
    const status = readFileSync('/proc/self/status', 'utf8');
    return JSON.stringify({
      v: 1,
      uid: process.geteuid?.(),
      gid: process.getegid?.(),
      caps: /^CapEff:\s*(\S+)$/m.exec(status)?.[1],
      boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      ns: NAMESPACES.map((ns) => readlinkSync(`/proc/self/ns/${ns}`)),
      switches: SWITCHES.map(readSwitch),
      binary: [argv[0], bwrap.dev, bwrap.ino, bwrap.size, bwrap.mtimeMs, bwrap.ctimeMs, bwrap.mode],
      argv,
    });
  } catch {
    return undefined;
  }
}

function readSwitch(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

/** Where the verdict of `key` lives, when this user has a private folder. */
function fileOf(key: string): string | undefined {
  const dir = privateUserDir();
  return dir === undefined ? undefined : join(dir, `contain-${createHash('sha256').update(key).digest('hex').slice(0, 32)}.ok`);
}

/** Whether a process of this user found, since this boot and with all of `key` as it is now, that the probe worked. */
export function keptVerdict(key: string | undefined): boolean {
  const file = key === undefined ? undefined : fileOf(key);
  if (key === undefined || file === undefined) return false;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.uid !== process.geteuid?.() || (stats.mode & 0o022) !== 0 || stats.size > MAX_BYTES) return false;
    return readFileSync(fd, 'utf8') === key;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/** Keeps that the probe of `key` worked, for the next process (written whole, then renamed into place). */
export function keepVerdict(key: string | undefined): void {
  const file = key === undefined ? undefined : fileOf(key);
  if (key === undefined || file === undefined) return;
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, key, { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
  } catch {
    rmSync(temporary, { force: true }); // not kept: the next process probes again
  }
}
