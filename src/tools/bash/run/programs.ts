/**
 * The programs a way of running commands is made of, looked up on the PATH the commands get: bubblewrap, util-linux's
 * `unshare` and `setpriv`, coreutils' `timeout`. A lookup is a few `access` calls: no process is started.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isWithin, PRIVATE_DIRS } from './hidden.js';

export function findExecutable(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The backstop fires this long after the agent's own timer should have. */
const BACKSTOP_GRACE_MS = 1000;

/** The backstop's delay for a command's timeout, as `timeout` and `sleep` read it (`121s`). */
export function backstopSeconds(timeoutMs: number): string {
  return `${(timeoutMs + BACKSTOP_GRACE_MS) / 1000}s`;
}

/**
 * `timeout -s KILL SECONDS`, to go before the shell: the kernel's clock kills the command a second after its timeout
 * even when the agent cannot (stopped, its event loop blocked). Nothing when coreutils' timeout is not on the PATH.
 */
export function backstop(timeoutBin: string | undefined, timeoutMs: number): string[] {
  if (timeoutBin === undefined) return [];
  return [timeoutBin, '-s', 'KILL', backstopSeconds(timeoutMs)];
}

/** What a backstop can be made of, looked up on the PATH the commands get: coreutils' `timeout`, and its `sleep`. */
export interface BackstopPrograms {
  timeout?: string | undefined;
  /** Only where /bin/sh is too: the sleeper is a shell's. */
  sleep?: string | undefined;
}

export function backstopPrograms(pathVar: string | undefined): BackstopPrograms {
  const sleep = isExecutable(SH) ? findExecutable('sleep', pathVar) : undefined;
  return { timeout: findExecutable('timeout', pathVar), ...(sleep === undefined ? {} : { sleep }) };
}

/** The shell the lifeline's watcher and the backstop's sleeper are scripts of (dash on Debian). */
export const SH = '/bin/sh';

/**
 * The sleeper: forked by the shell that then becomes the command (exec), it sleeps the backstop's time and kills that
 * shell. `$1`: sleep, `$2`: the seconds; the command's argv follows. Its output goes nowhere, so it holds no pipe of
 * the command's.
 */
export const SLEEPER = '{ "$1" "$2" && kill -KILL $$; } </dev/null >/dev/null 2>&1 & shift 2; exec "$@"';

/**
 * The backstop of a command in a bubblewrap PID namespace, to go before its shell, with no process of its own on the
 * command's path: `/bin/sh -c SLEEPER sh SLEEP SECONDS`. The shell forks the sleeper and becomes the command's shell,
 * the namespace's second process (bubblewrap's init is its first). When that shell exits, bubblewrap's init exits and
 * the kernel kills everything left in the namespace, the sleeper with it; when it runs past the backstop, the sleeper
 * kills it, and the namespace goes the same way. `timeout` (exec'd, then a fork and the shell's exec under it) put its
 * own exec on every command's path: 0.3-0.5 ms at idle, more on a busy machine (BENCHMARKS.md, peers (a)). Not for the
 * unshare way: there the command's shell is the namespace's first process, which a SIGKILL from inside does not kill.
 * `timeout` where there is no sleeper; nothing where neither is.
 */
export function namespaceBackstop(programs: BackstopPrograms, timeoutMs: number): string[] {
  if (programs.sleep === undefined) return backstop(programs.timeout, timeoutMs);
  return [SH, '-c', SLEEPER, 'sh', programs.sleep, backstopSeconds(timeoutMs)];
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether this process runs as root (then a command would have root's capabilities unless they are dropped). */
export function isRoot(): boolean {
  return process.geteuid?.() === 0;
}

/**
 * The folders a long-lived program (an MCP server) needs to see of itself where a private directory (/tmp, /var/tmp,
 * /run) would hide them in the sandbox: for each absolute path to a file in its argv (the program, a script,
 * `--import=/x`), the first folder under the private directory that holds it (a package's modules sit above its
 * script, so the folder it came in is what runs). The sandbox shows them read-only, before hiding what it hides.
 */
export function programFolders(argv: readonly string[]): string[] {
  const privates = PRIVATE_DIRS.flatMap(realDir);
  const folders = argv.flatMap(pathsIn).flatMap((path) => {
    const real = realFile(path);
    const under = real === undefined ? undefined : privates.find((dir) => real !== dir && isWithin(real, dir));
    if (real === undefined || under === undefined) return [];
    return [join(under, relative(under, real).split(sep)[0] as string)];
  });
  return [...new Set(folders)];
}

/** An argument's absolute paths: itself, or the value of `--option=/path`; a `file:` URL (node's `--import`) too. */
function pathsIn(arg: string): string[] {
  const value = arg.startsWith('-') && arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg;
  if (isAbsolute(value)) return [value];
  try {
    return value.startsWith('file:') ? [fileURLToPath(value)] : [];
  } catch {
    return []; // not a file URL of this system
  }
}

function realFile(path: string): string | undefined {
  try {
    return statSync(path).isFile() ? realpathSync(path) : undefined;
  } catch {
    return undefined;
  }
}

function realDir(path: string): string[] {
  try {
    return statSync(path).isDirectory() ? [realpathSync(path)] : [];
  } catch {
    return [];
  }
}
