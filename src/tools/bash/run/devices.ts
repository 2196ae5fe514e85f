/**
 * The devices a contained command keeps of the host's /dev: what a command needs and nothing more, so that neither a
 * root command nor an unprivileged one reaches the kernel's log (/dev/kmsg: fake log lines), the disks, loop and
 * device-mapper devices (a root command would read or write a disk under every file system), /dev/fuse, /dev/mem and
 * /dev/port, the hypervisor's channels (/dev/vsock, virtio ports), /dev/userfaultfd (an exploit's aid), the user's
 * terminals (TIOCSTI into the user's shell, escape codes) and the input devices (a keyboard's events; /dev/uinput
 * makes a keyboard that types into any terminal).
 *
 * Kept: what bubblewrap's `--dev /dev` makes itself (null, zero, full, random, urandom, tty, a private devpts with its
 * ptmx, the fd/stdin/stdout/stderr links), the host's /dev/shm (POSIX shared memory and semaphores: Python's
 * multiprocessing, Chromium), and the devices of compute work, which a build or a test may need and which open no way
 * out of the command's reach: GPUs (/dev/dri, /dev/nvidia*, AMD's /dev/kfd) and /dev/kvm (emulators, VM tests).
 *
 * Read from /dev (one directory listing), again only when /dev changed (its mtime).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The host's entries of /dev a command keeps besides what bubblewrap makes (see the header). */
const KEPT = /^(shm|dri|kfd|kvm|nvidia[\w-]*)$/;
/** What bubblewrap's `--dev /dev` makes: the unshare way makes the same (unshare.ts). */
export const MADE_DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'] as const;
export const MADE_LINKS: readonly [string, string][] = [
  ['fd', '/proc/self/fd'],
  ['stdin', '/proc/self/fd/0'],
  ['stdout', '/proc/self/fd/1'],
  ['stderr', '/proc/self/fd/2'],
  ['ptmx', 'pts/ptmx'],
];

export interface HostDevices {
  /** bubblewrap's options, after `--dev /dev`, that bring back every device a command keeps. */
  bwrapArgs: string[];
  /** The host's entries of /dev a command keeps (KEPT), by name: the unshare way binds them into its own /dev. */
  kept: { name: string; dir: boolean }[];
}

let cache: { stamp: string; devices: HostDevices } | undefined;

export function hostDevices(): HostDevices {
  const stats = statSync('/dev');
  const stamp = `${stats.mtimeMs}:${stats.ctimeMs}`;
  if (cache?.stamp !== stamp) cache = { stamp, devices: keptDevices(readdirSync('/dev', { withFileTypes: true }).map((e) => e.name)) };
  return cache.devices;
}

/** Of the names in /dev, those a command keeps, and bubblewrap's options for them. */
export function keptDevices(names: readonly string[]): HostDevices {
  const kept = names.filter((name) => KEPT.test(name)).flatMap((name) => {
    try {
      const stats = statSync(join('/dev', name)); // a link is followed: its target is bound
      return stats.isDirectory() || stats.isCharacterDevice() ? [{ name, dir: stats.isDirectory() }] : [];
    } catch {
      return []; // gone, or out of reach
    }
  });
  return { bwrapArgs: kept.flatMap(({ name }) => ['--dev-bind', join('/dev', name), join('/dev', name)]), kept };
}
