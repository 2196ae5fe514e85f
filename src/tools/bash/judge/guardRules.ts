/**
 * The guard's rules for one command (its wrappers already dropped): what it would destroy. See
 * guard.ts for what the guard is and is not.
 */
import { basename, type Value } from './shell/commandWords.js';

const ESCALATION = new Set(['sudo', 'doas', 'pkexec', 'su', 'run0']);
const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const SYSTEMCTL_POWER = new Set(['poweroff', 'reboot', 'halt', 'kexec', 'rescue', 'emergency']);
const FORMATS = new Set(['mke2fs', 'mkswap', 'wipefs', 'blkdiscard', 'mkdosfs', 'mkntfs']);
const PARTITIONS = new Set(['fdisk', 'sfdisk', 'sgdisk', 'gdisk', 'parted', 'cfdisk']);
/** Commands that destroy the files they are given (`find / -exec NAME`, `... | xargs NAME`). */
export const DESTRUCTIVE = new Set(['rm', 'shred', 'unlink', 'rmdir', 'mv', 'chmod', 'chown', 'chgrp', 'truncate', 'dd', 'srm', 'wipe']);

/** Why the command is blocked, or null; `cwd` resolves relative paths (null: the tool's own directory). */
export function checkCommandWords(words: readonly Value[], cwd: string | null): string | null {
  const [first, ...rest] = words;
  if (first === null || first === undefined) return null;
  const name = basename(first);
  const args = rest.filter((a): a is string => a !== null);
  const path = (p: string) => resolvePath(p, cwd);
  if (ESCALATION.has(name)) return `${name} (privilege escalation)`;
  if (POWER.has(name)) return name;
  if ((name === 'init' || name === 'telinit') && (args[0] === '0' || args[0] === '6')) return `${name} ${args[0]}`;
  if (name === 'systemctl' && args.some((a) => SYSTEMCTL_POWER.has(a))) return 'systemctl power command';
  if (/^mkfs(\..*)?$/.test(name) || FORMATS.has(name)) return `${name} (formats a filesystem)`;
  if (PARTITIONS.has(name) && args.some(isDangerousDevice) && !args.some((a) => /^(-l|--list|print|-s|--show)$/.test(a))) {
    return `${name} (rewrites a partition table)`;
  }
  switch (name) {
    case 'dd': {
      const of = args.find((a) => a.startsWith('of=') && isDangerousDevice(path(a.slice(3))));
      return of === undefined ? null : `dd to device ${of.slice(3)}`;
    }
    case 'tee':
    case 'cp':
    case 'install':
    case 'ln':
    case 'mv': {
      const operands = args.filter((a) => !a.startsWith('-'));
      const dev = (name === 'tee' ? operands : operands.slice(-1)).find((a) => isDangerousDevice(path(a)));
      if (dev !== undefined) return `write to device ${dev}`;
      if (name !== 'mv') return null;
      const moved = operands.slice(0, -1).find((a) => isProtectedPath(path(a)));
      return moved === undefined ? null : `mv ${moved} (moves a protected directory)`;
    }
    case 'shred':
    case 'wipe':
    case 'srm': {
      const target = args.filter((a) => !a.startsWith('-')).find((a) => isDangerousDevice(path(a)) || isProtectedPath(path(a)));
      return target === undefined ? null : `${name} ${target}`;
    }
    case 'rm':
      return checkRecursive('rm', args, cwd, true);
    case 'chmod':
    case 'chown':
    case 'chgrp':
      return checkRecursive(name, args, cwd, false);
  }
  return null;
}

/** `rm -r` and `chmod -R` of a protected path, and `rm --no-preserve-root`. */
function checkRecursive(name: string, args: string[], cwd: string | null, isRm: boolean): string | null {
  let recursive = false;
  const operands: string[] = [];
  let options = true;
  for (const a of args) {
    if (options && a === '--') options = false;
    else if (options && a === '--no-preserve-root') return `${name} --no-preserve-root`;
    else if (options && a === '--recursive') recursive = true;
    else if (options && /^-[A-Za-z]+$/.test(a)) recursive ||= isRm ? /[rR]/.test(a) : a.includes('R');
    else if (!(options && a.startsWith('--'))) operands.push(a);
  }
  const target = operands.find((o) => isProtectedPath(resolvePath(o, cwd)));
  if (recursive && target !== undefined) {
    const where = resolvePath(target, cwd) === target ? target : `${target} in ${cwd}`;
    return `${name} -r ${where}`;
  }
  return null;
}

/** A relative path against the directory a `cd` moved to (when known). */
export function resolvePath(path: string, cwd: string | null): string {
  if (cwd === null || path.startsWith('/') || path === '~' || path.startsWith('~/')) return path;
  return `${cwd}/${path}`;
}

/** `/`, `/*`, a top-level directory, the home directory or everything in it. */
export function isProtectedPath(path: string): boolean {
  let p = path.replace(/^(\$HOME|\$\{HOME\})(?=\/|$)/, '~');
  const home = p === '~' || p.startsWith('~/');
  if (home) p = p.slice(1);
  else if (!p.startsWith('/')) return false;
  const parts: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  if (parts.length > 0 && /^\*+$/.test(parts[parts.length - 1] as string)) parts.pop();
  return parts.length === 0 || (!home && parts.length === 1);
}

const HARMLESS_DEVICES = new Set(['null', 'zero', 'full', 'random', 'urandom', 'stdin', 'stdout', 'stderr', 'tty']);

/** A path under /dev/ other than the harmless pseudo-devices. */
export function isDangerousDevice(path: string): boolean {
  const p = path.replace(/\/+/g, '/');
  if (!p.startsWith('/dev/')) return false;
  const rest = p.slice('/dev/'.length);
  if (HARMLESS_DEVICES.has(rest)) return false;
  return !/^(fd|pts|shm|tcp|udp)\//.test(rest);
}
