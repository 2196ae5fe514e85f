/**
 * A guard against the model's worst mistakes: it is NOT a security boundary (use the sandbox for
 * that). It looks at every command of a command line (including `$(...)`, backquotes,
 * `bash -c '...'` and `eval`) and blocks:
 *
 * - privilege escalation in command position: `sudo`, `doas`, `pkexec`, `su`
 *   (`echo sudo`, `grep sudo file`, `apt show sudo` are allowed: only the command word counts);
 * - `shutdown`, `reboot`, `halt`, `poweroff`, `init 0|6`, `systemctl reboot|poweroff|halt|...`;
 * - making or wiping filesystems: `mkfs`, `mkfs.*`, `mke2fs`, `mkswap`, `wipefs`;
 * - recursive `rm` (also `chmod`/`chown`/`chgrp -R`, `find -delete`) of `/`, `/*`, a top-level
 *   directory (`/usr`, `/home`, ...), `~`, `~/*`, `$HOME`; and any `rm --no-preserve-root`
 *   (`rm -rf ./build`, `rm -rf /tmp/x`, `rm -rf node_modules` are allowed);
 * - writes to device files: `> /dev/sda`, `dd of=/dev/...`, `tee /dev/...`, except the harmless
 *   ones (`/dev/null`, `/dev/stdout`, `/dev/stderr`, `/dev/tty`, `/dev/fd/N`, `/dev/shm/...`, ...);
 * - the classic fork bomb `:(){ :|:& };:`.
 */
import { basename, commandWords, lex, simpleCommands, writesFile } from './shellWords.js';

/** Returns why the command is blocked, or null when it may run. */
export function findDanger(command: string): string | null {
  return check(command, 0);
}

const MAX_DEPTH = 8;
const FORK_BOMB = /:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;?\s*:/;

function check(command: string, depth: number): string | null {
  if (depth > MAX_DEPTH) return 'command nested too deeply to check';
  if (FORK_BOMB.test(command)) return 'fork bomb';
  const { tokens, substitutions } = lex(command);
  for (const inner of substitutions) {
    const reason = check(inner, depth + 1);
    if (reason !== null) return reason;
  }
  for (const cmd of simpleCommands(tokens)) {
    for (const r of cmd.redirects) {
      if (writesFile(r) && isDangerousDevice(r.target.value)) return `write to device ${r.target.value}`;
    }
    const reason = checkWords(commandWords(cmd.words.map((w) => w.value)), depth);
    if (reason !== null) return reason;
  }
  return null;
}

const ESCALATION = new Set(['sudo', 'doas', 'pkexec', 'su']);
const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const SYSTEMCTL_POWER = new Set(['poweroff', 'reboot', 'halt', 'kexec', 'rescue', 'emergency']);
const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh']);

function checkWords(words: string[], depth: number): string | null {
  const [first, ...args] = words;
  if (first === undefined) return null;
  const name = basename(first);
  if (ESCALATION.has(name)) return `${name} (privilege escalation)`;
  if (POWER.has(name)) return name;
  if ((name === 'init' || name === 'telinit') && (args[0] === '0' || args[0] === '6')) return `${name} ${args[0]}`;
  if (name === 'systemctl' && args.some((a) => SYSTEMCTL_POWER.has(a))) return 'systemctl power command';
  if (/^mkfs(\..*)?$/.test(name) || ['mke2fs', 'mkswap', 'wipefs'].includes(name)) return `${name} (formats a filesystem)`;
  if (name === 'dd') {
    const of = args.find((a) => a.startsWith('of=') && isDangerousDevice(a.slice(3)));
    if (of !== undefined) return `dd to device ${of.slice(3)}`;
  }
  if (name === 'tee') {
    const dev = args.find(isDangerousDevice);
    if (dev !== undefined) return `write to device ${dev}`;
  }
  if (name === 'rm') return checkRecursive('rm', args, true);
  if (name === 'chmod' || name === 'chown' || name === 'chgrp') return checkRecursive(name, args, false);
  if (name === 'find' && args.includes('-delete')) {
    const root = args.slice(0, firstIndex(args, (a) => a.startsWith('-'))).find(isProtectedPath);
    if (root !== undefined) return `find ${root} -delete`;
  }
  if (SHELLS.has(name)) {
    const c = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
    const script = c >= 0 ? args[c + 1] : undefined;
    if (script !== undefined) return check(script, depth + 1);
  }
  if (name === 'eval') return check(args.join(' '), depth + 1);
  return null;
}

/** `rm -r` and `chmod -R` of a protected path, and `rm --no-preserve-root`. */
function checkRecursive(name: string, args: string[], isRm: boolean): string | null {
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
  const target = operands.find(isProtectedPath);
  if (recursive && target !== undefined) return `${name} -r ${target}`;
  return null;
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

function firstIndex<T>(items: T[], pred: (item: T) => boolean): number {
  const i = items.findIndex(pred);
  return i < 0 ? items.length : i;
}
