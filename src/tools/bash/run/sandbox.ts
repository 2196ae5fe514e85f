/**
 * The sandboxed way (`--sandbox`): a command runs under bubblewrap with the whole file system read-only except the
 * working directory, private /tmp, /var/tmp and /run, no network (not even the host's loopback), a private PID namespace
 * killed with the agent, no capabilities (as root too), the kernel's settings read-only (kernel.ts), a session and a
 * /dev of its own (no terminal of the user's), and what is not the task's hidden (hidden.ts: secrets of the account, the
 * agent's home, .env files, unix sockets). A command's session is the one the process runner made for its bwrap, not
 * bubblewrap's `--new-session`, so that an abort's kill of that bwrap's process group takes the namespace at any
 * moment of its setup (contained.ts says why); a long-lived program (`wrap`: an MCP server) is spawned detached too.
 */
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { homedir, tmpdir, userInfo } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { removeAtExit } from './atExit.js';
import { hiddenPaths, isDotEnvName, planMounts, PRIVATE_DIRS, socketPaths, type Found } from './hidden.js';
import { procReadOnlyArgs } from './kernel.js';
import { existingProtection, prepareProtection } from './placeholders.js';
import { protectedPaths } from './protect.js';
import { findExecutable, namespaceBackstop, programFolders, type BackstopPrograms } from './programs.js';
import { launch, type CommandRunner, type RunEnding } from './runner.js';

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

/** What the sandbox hides and shows besides its rules (hidden.ts). */
export interface SandboxView {
  /** The environment the tool starts from: HOME, AGENTLOOP_HOME, PATH, the variables of ENV_PATHS. */
  env: Readonly<Record<string, string | undefined>>;
  /** More paths to hide (the session store the agent writes to). */
  hide?: readonly string[];
  /** Folders shown read-only wherever they are (the saved output of long commands). */
  reveal?: readonly string[];
  /** Files that run later to keep read-only although in the working directory (placeholders.ts): pins and paths. */
  protect?: { pins: readonly string[]; readOnly: readonly string[] };
  /** The argv of a long-lived program (an MCP server): its own files are shown where a private directory holds them. */
  program?: readonly string[];
}

/**
 * The argv that runs `command` with bash inside the sandbox, working in `cwd` (a real path);
 * `before` goes before bash (the backstop: programs.ts namespaceBackstop). Looks at the disk now: what to hide is what
 * exists when the command starts.
 */
export function sandboxArgv(
  bwrap: string,
  cwd: string,
  command: string,
  before: string[] = [],
  view: SandboxView = { env: process.env },
): [string, ...string[]] {
  return [...sandboxPrefix(bwrap, cwd, view), ...before, 'bash', '-c', command];
}

/** bubblewrap's part of the argv, up to the program it runs sandboxed; its caller starts it detached (contained.ts). */
function sandboxPrefix(bwrap: string, cwd: string, view: SandboxView): [string, ...string[]] {
  return [
    bwrap,
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    ...procReadOnlyArgs(),
    ...sandboxMounts(cwd, view),
    '--unshare-net',
    '--unshare-pid',
    '--die-with-parent',
    // As root, bwrap keeps every capability unless told: a command could remount / read-write.
    '--cap-drop', 'ALL',
    '--chdir', cwd,
    '--',
  ];
}

/** What the sandboxed way is made of; the environment and the folders to show are read at each command. */
export interface SandboxSettings {
  bwrap: string;
  /** What the backstop is made of (programs.ts namespaceBackstop). */
  backstop: BackstopPrograms;
  /** The environment the tool starts from (read at each command: the caller may load a .env file later). */
  env(): Readonly<Record<string, string | undefined>>;
  /** More paths to hide (the session store the agent writes to). */
  hide?: readonly string[];
  /** Folders shown read-only wherever they are (the saved output of long commands, once its folder exists). */
  reveal(): readonly string[];
  /** Names of protect.ts's list the commands may write after all (`.bashrc`, `.git`: all of `.git/...`). */
  allowWrite?: readonly string[];
}

export function sandboxRunner(settings: SandboxSettings): CommandRunner {
  return {
    kind: 'sandboxed',
    async run(run) {
      const cwd = await directory(run.cwd);
      if (cwd === undefined) return { kind: 'spawn-error', message: `no such directory: ${run.cwd}` } satisfies RunEnding;
      const env = settings.env();
      // Before the mounts are planned: a placeholder made now is hidden like the file it stands in for, where it is one.
      const protection = prepareProtection(protectedPaths(cwd, homeFolders(env), settings.allowWrite ?? []), cwd);
      try {
        const view: SandboxView = { env, reveal: settings.reveal(), protect: protection, ...(settings.hide ? { hide: settings.hide } : {}) };
        const argv = sandboxArgv(settings.bwrap, cwd, run.command, namespaceBackstop(settings.backstop, run.timeoutMs), view);
        return await launch(argv, { ...run, cwd });
      } finally {
        protection.release();
      }
    },
    // A long-lived program (an MCP server) gets the same mounts, and of the files that run later (protect.ts) those
    // that exist are kept read-only; no placeholder stands in for a missing one (it would have to outlive the call
    // that made it), so such a program can make one.
    wrap(argv, cwd) {
      const env = settings.env();
      const real = realpathSync(cwd);
      const protect = existingProtection(protectedPaths(real, homeFolders(env), settings.allowWrite ?? []), real);
      const view: SandboxView = { env, reveal: settings.reveal(), protect, program: argv, ...(settings.hide ? { hide: settings.hide } : {}) };
      return [...sandboxPrefix(settings.bwrap, real, view), ...argv];
    },
  };
}

/** The real path of `path` when it is a directory: what the sandbox binds (a symbolic link cannot be bound). */
async function directory(path: string): Promise<string | undefined> {
  try {
    const real = await realpath(path);
    return (await stat(real)).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** The mounts that make the private directories, bind `cwd` and hide what is not the task's. */
export function sandboxMounts(cwd: string, view: SandboxView): string[] {
  const { env } = view;
  const home = homeOf(env);
  const agentloopHome = env.AGENTLOOP_HOME && env.AGENTLOOP_HOME.trim() !== '' ? env.AGENTLOOP_HOME : join(home, '.agentloop');
  const { paths, dotEnvDirs } = hiddenPaths({
    homes: [home, ...accountHome()],
    agentloopHome,
    cwd,
    env,
    ...(view.hide ? { extra: view.hide } : {}),
  });
  const hidden = [...paths.map((p) => p.path), ...dotEnvDirs.flatMap(dotEnvFiles)].flatMap(found);
  const dirs = (list: readonly string[]) => list.flatMap(found).filter((f) => f.dir).map((f) => f.real);
  return planMounts({
    cwd,
    privateDirs: PRIVATE_DIRS.flatMap(found),
    hidden,
    sockets: listedSockets(),
    reveal: dirs(view.reveal ?? []),
    ...(view.protect ? { protect: view.protect } : {}),
    revealFromPrivate: dirs((env.PATH ?? '').split(delimiter).filter((d) => isAbsolute(d))),
    ...(view.program ? { programs: programFolders(view.program) } : {}),
    empty: emptyFile(),
  });
}

function found(path: string): Found[] {
  // Most paths do not exist: a stat that returns undefined costs far less than a thrown error.
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats === undefined ? [] : [{ real: realpathSync.native(path), dir: stats.isDirectory() }];
  } catch {
    return []; // out of this user's reach (EACCES): out of the command's too
  }
}

function homeOf(env: Readonly<Record<string, string | undefined>>): string {
  return env.HOME !== undefined && isAbsolute(env.HOME) ? env.HOME : homedir();
}

let passwdHomes: string[] | undefined;

/**
 * Every home folder on this machine, as real paths: `$HOME`, the account's, and each of /etc/passwd (read once), so
 * that a working directory that holds homes (root's agent in /home) keeps their start-up files too.
 */
function homeFolders(env: Readonly<Record<string, string | undefined>>): string[] {
  passwdHomes ??= readPasswdHomes();
  return [...new Set([homeOf(env), ...accountHome(), ...passwdHomes].flatMap(found).filter((f) => f.dir && f.real !== '/').map((f) => f.real))];
}

function readPasswdHomes(): string[] {
  try {
    return readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((line) => line.split(':')[5] ?? '')
      .filter((home) => isAbsolute(home) && home !== '/');
  } catch {
    return [];
  }
}

function accountHome(): string[] {
  try {
    return [userInfo().homedir];
  } catch {
    return []; // no passwd entry for this uid
  }
}

function dotEnvFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter(isDotEnvName).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** Sockets bound to a path, as the kernel lists them, that are still sockets there. */
function listedSockets(): string[] {
  let text: string;
  try {
    text = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return [];
  }
  return socketPaths(text).flatMap((path) => {
    try {
      const real = realpathSync(path);
      return lstatSync(real).isSocket() ? [real] : [];
    } catch {
      return [];
    }
  });
}

let emptyDir: string | undefined;

/** An empty read-only file of this process (removed at exit), bound over hidden files. */
function emptyFile(): string {
  if (emptyDir !== undefined && existsSync(join(emptyDir, 'empty'))) return join(emptyDir, 'empty');
  emptyDir = mkdtempSync(join(tmpdir(), 'agentloop-sandbox-'));
  removeAtExit(emptyDir);
  const file = join(emptyDir, 'empty');
  writeFileSync(file, '');
  chmodSync(file, 0o444);
  return file;
}
