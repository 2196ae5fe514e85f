/**
 * What the file tools may touch. They run in the agent's own process, outside any sandbox, so the containment rules
 * that bubblewrap gives commands are checked here, on every path a call names, as given and as its real path (links
 * on the way and at the end followed, `..` resolved, /proc/self/root, /proc/self/fd and /dev/fd included):
 *
 * - Never shown, read or written (any run): the agent's own secrets: `$AGENTLOOP_HOME` (every transcript) and the
 *   session store the host names (`hide`), any process's environment and command line in /proc (the agent's holds the
 *   API key), and the `.env` files of the working directory, the folders above it and the homes (tools/bash/run/hidden.ts).
 * - Never written: the files that run later (tools/bash/run/protect.ts: `.git/hooks`, `.git/config`, shell start-up
 *   files, `.vscode`, ...), unless `allowWrite` names them.
 * - Under the sandbox: what a sandboxed command cannot see is not shown either (hidden.ts: ~/.ssh, ~/.aws, ...), and
 *   writes go only into the working directory, as a sandboxed command's do.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { agentloopHome } from '../../core/home.js';
import { hiddenPaths, isDotEnvName, isWithin, selfAndAncestors } from '../bash/run/hidden.js';
import { protectedWriteReason, realPathOf } from '../bash/run/protect.js';
import { coverTest, rootedPattern } from './pathRules.js';

export interface FileGuardOptions {
  /** Under --sandbox: also hide what a sandboxed command cannot see, and write only in the working directory. */
  sandbox?: boolean;
  /** More paths never shown (the session store the agent writes to). */
  hide?: readonly string[];
  /** Files that run later that may be written after all, by name (`.git/hooks`, `.vscode`; protect.ts). */
  allowWrite?: readonly string[];
  /** The environment (`$AGENTLOOP_HOME`, `$HOME`, the variables naming credentials); default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The account's home (default: the OS's). */
  home?: string;
  /**
   * The path patterns of the run's `Read(...)` deny rules: Glob and Grep leave what they cover out of a walk, as Claude
   * Code's do (the gate denies a Read, or a search of a folder, they cover: the tools' `permission.matches`).
   */
  denyRead?: readonly string[];
}

/** /proc/PID/environ (and the like) of any process, any thread: where the agent's environment can be read. */
const PROC_SECRET = /^\/proc\/[^/]+(?:\/task\/[^/]+)?\/(?:environ|cmdline|mem|auxv)$/;

export class FileGuard {
  readonly #options: FileGuardOptions;

  constructor(options: FileGuardOptions = {}) {
    this.#options = options;
  }

  get home(): string {
    return this.#options.home ?? homedir();
  }

  /** Why `path` (absolute) must not be read or listed, or null. */
  readReason(path: string, cwd: string): string | null {
    const secrets = this.#secrets(cwd);
    for (const form of forms(path)) {
      const why = secrets.reason(form);
      if (why !== null) return `${path} is hidden from the file tools (${why}).`;
    }
    return null;
  }

  /** Why `path` (absolute) must not be written, or null. */
  writeReason(path: string, cwd: string): string | null {
    const read = this.readReason(path, cwd);
    if (read !== null) return read;
    const protectedWhy = protectedWriteReason(path, { cwd, home: this.home, ...(this.#options.allowWrite ? { allow: this.#options.allowWrite } : {}) });
    if (protectedWhy !== null) return protectedWhy;
    if (this.#options.sandbox === true) {
      const realCwd = realOrSelf(cwd);
      if (!forms(path).every((form) => isWithin(form, cwd) || isWithin(form, realCwd))) {
        return `${path} is outside the working directory ${cwd}: under --sandbox the file tools write only there, as sandboxed commands do.`;
      }
    }
    return null;
  }

  /**
   * For a walk (Glob, Grep): a test of each entry's path, as found (walks follow no links). `denyRead`: more `Read(...)`
   * deny patterns, the run's (ToolContext.denyRules).
   */
  walkFilter(cwd: string, denyRead: readonly string[] = []): (path: string) => boolean {
    const secrets = this.#secrets(cwd);
    const denied = [...(this.#options.denyRead ?? []), ...denyRead].map((specifier) => coverTest(rootedPattern(specifier, [cwd], this.home)));
    return (path) => secrets.reason(path) === null && !denied.some((covers) => covers(path));
  }

  #secrets(cwd: string): SecretPaths {
    const env = this.#options.env ?? process.env;
    const homes = [...new Set([this.home, env.HOME ?? this.home].filter((h) => h !== '' && h !== '/'))];
    const own = [agentloopHome(env, this.home), ...(this.#options.hide ?? [])];
    const hidden = this.#options.sandbox === true ? hiddenPaths({ homes, agentloopHome: own[0] as string, cwd, env, extra: own.slice(1) }).paths : [];
    const dirs = [...own.map((p) => ({ path: p, why: "the agent's own (its sessions and transcripts)" })), ...hidden];
    const dotEnvDirs = new Set([...selfAndAncestors(cwd), ...selfAndAncestors(realOrSelf(cwd)), ...homes].map((d) => resolve(d)));
    return new SecretPaths(dirs.flatMap((d) => [d, { path: realOrSelf(d.path), why: d.why }]), dotEnvDirs);
  }
}

class SecretPaths {
  constructor(
    readonly paths: readonly { path: string; why: string }[],
    readonly dotEnvDirs: ReadonlySet<string>,
  ) {}

  reason(path: string): string | null {
    if (PROC_SECRET.test(path)) return 'a process environment or command line';
    if (isDotEnvName(basename(path)) && this.dotEnvDirs.has(dirname(path))) return 'a .env file of the working directory, a folder above it or the home';
    const hit = this.paths.find((p) => isWithin(path, p.path));
    return hit === undefined ? null : hit.why;
  }
}

/** The path as given, and its real path (a link at any step followed, also to a missing file). */
export function forms(path: string): string[] {
  return [...new Set([path, realPathOf(path)])];
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
