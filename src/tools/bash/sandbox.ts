/**
 * Running a command under bubblewrap: the whole file system read-only except the working
 * directory, a private /tmp, no network (not even the host's loopback), a private PID namespace.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export class SandboxUnavailableError extends Error {
  override name = 'SandboxUnavailableError';
}

/** The path of `bwrap` on `pathVar`; throws a SandboxUnavailableError naming the package. */
export function requireBwrap(pathVar: string | undefined): string {
  const found = findExecutable('bwrap', pathVar);
  if (found === undefined) {
    throw new SandboxUnavailableError(
      "sandbox: 'bwrap' was not found on PATH. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) " +
        'or run without the sandbox.',
    );
  }
  return found;
}

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

/**
 * The argv that runs `command` with bash inside the sandbox, working in `cwd`; `before` goes
 * before bash (the timeout backstop).
 */
export function sandboxArgv(bwrap: string, cwd: string, command: string, before: string[] = []): [string, ...string[]] {
  return [
    bwrap,
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    '--bind', cwd, cwd,
    '--unshare-net',
    '--unshare-pid',
    '--die-with-parent',
    '--chdir', cwd,
    '--',
    ...before,
    'bash', '-c', command,
  ];
}
