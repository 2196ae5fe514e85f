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
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The backstop fires this long after the agent's own timer should have. */
const BACKSTOP_GRACE_MS = 1000;

/**
 * `timeout -s KILL SECONDS`, to go before the shell inside a namespace: the kernel's clock kills the command a second
 * after its timeout even when the agent cannot (stopped, its event loop blocked). Nothing when coreutils' timeout is
 * not on the PATH.
 */
export function backstop(timeoutBin: string | undefined, timeoutMs: number): string[] {
  if (timeoutBin === undefined) return [];
  return [timeoutBin, '-s', 'KILL', `${(timeoutMs + BACKSTOP_GRACE_MS) / 1000}s`];
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
