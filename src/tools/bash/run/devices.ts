/**
 * The host's devices, sorted into what a contained command keeps (GPUs, /dev/kvm, /dev/fuse, disks, /dev/shm, ...) and
 * what it must not reach: every terminal, the agent's own among them (/dev/pts/*, /dev/console, the virtual consoles
 * and their screens, serial lines), where it could type into the user's shell (TIOCSTI) or write escape codes; and the
 * input devices (a keyboard's events; /dev/uinput and /dev/uhid make a keyboard that types into any terminal).
 *
 * Read from /dev (one directory listing) and /proc/devices (which driver each major number belongs to, so that a
 * terminal is known by what it is, not only by its name), again only when /dev changed (its mtime).
 */
import { readdirSync, readFileSync, readlinkSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/** What bubblewrap's `--dev /dev` makes itself: a private devpts (`pts`, `ptmx`) and the harmless nodes. */
const MADE_BY_BWRAP = new Set(['null', 'zero', 'full', 'random', 'urandom', 'tty', 'fd', 'stdin', 'stdout', 'stderr', 'core', 'pts', 'ptmx']);
/** Terminals by name: ttyN, ttyS*, ttyUSB*, BSD ptys, vcs* (a console's screen), hypervisor consoles, /dev/vc/. */
const TERMINAL_NAME = /^(tty|pty|vcs|hvc|console$|vc$|pts$|ptmx$)/;
const INPUT_NAME = /^(input|uinput|uhid)$/;
/** Drivers of /proc/devices whose character devices are terminals or input devices. */
const TERMINAL_DRIVER = /^(\/dev\/)?(tty|pts|ptm|ptmx|console|vc|vcs|hvc|input)\b/;

export interface HostDevices {
  /** bubblewrap's options, after `--dev /dev`, that bring back every device a command keeps. */
  bwrapArgs: string[];
  /** Top-level terminal and input entries of /dev that the unshare way must cover (the pts folder left out). */
  covered: { path: string; dir: boolean }[];
}

let cache: { stamp: string; devices: HostDevices } | undefined;

export function hostDevices(): HostDevices {
  const stats = statSync('/dev');
  const stamp = `${stats.mtimeMs}:${stats.ctimeMs}`;
  if (cache?.stamp !== stamp) cache = { stamp, devices: sortDevices(readdirSync('/dev', { withFileTypes: true }), terminalMajors()) };
  return cache.devices;
}

function sortDevices(entries: Dirent[], terminalMajors: Set<number>): HostDevices {
  const bwrapArgs: string[] = [];
  const covered: { path: string; dir: boolean }[] = [];
  for (const entry of entries) {
    const path = join('/dev', entry.name);
    if (isTerminal(entry, path, terminalMajors)) {
      if (entry.name !== 'pts' && entry.name !== 'ptmx' && entry.name !== 'tty') covered.push({ path, dir: entry.isDirectory() });
    } else if (MADE_BY_BWRAP.has(entry.name)) {
      continue;
    } else if (entry.isSymbolicLink()) {
      const target = readTarget(path);
      if (target !== undefined) bwrapArgs.push('--symlink', target, path);
    } else {
      bwrapArgs.push('--dev-bind', path, path);
    }
  }
  return { bwrapArgs, covered };
}

function isTerminal(entry: Dirent, path: string, terminalMajors: Set<number>): boolean {
  if (TERMINAL_NAME.test(entry.name) || INPUT_NAME.test(entry.name)) return true;
  if (!entry.isCharacterDevice()) return false;
  try {
    return terminalMajors.has(major(statSync(path).rdev));
  } catch {
    return true; // gone, or out of reach: not worth a mount
  }
}

function readTarget(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** Linux's major number of a device id (glibc's gnu_dev_major). */
function major(rdev: number): number {
  const dev = BigInt(rdev);
  return Number(((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn));
}

/** The character-device majors of the terminal and input drivers in /proc/devices. */
export function terminalMajors(text = readProcDevices()): Set<number> {
  const majors = new Set<number>();
  const characters = text.split(/\n\s*\n/)[0] ?? '';
  for (const line of characters.split('\n')) {
    const match = /^\s*(\d+)\s+(\S+)/.exec(line);
    if (match && TERMINAL_DRIVER.test(match[2] as string)) majors.add(Number(match[1]));
  }
  return majors;
}

function readProcDevices(): string {
  try {
    return readFileSync('/proc/devices', 'utf8');
  } catch {
    return '';
  }
}
