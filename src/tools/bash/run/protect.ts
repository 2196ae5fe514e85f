/**
 * Files that run later, outside the sandbox, kept read-only in it even inside the working directory (issue 23 item 6):
 * a command could otherwise plant code that the user's shell, git or editor runs afterwards, with none of the
 * sandbox's limits. Pure: names and paths in, paths out; placeholders.ts makes what is missing, sandbox.ts mounts.
 *
 * - In the working directory (a repository): git's hooks, its config (`core.fsmonitor`, `core.hooksPath`, aliases
 *   and filters run commands), `commondir` (which would point git at other hooks), the submodules' git folders;
 *   the editors' workspace settings (`.vscode`, `.idea`: tasks and interpreters run when the folder is opened).
 * - In a home folder, when the working directory is one or holds one: shell start-up files, `.inputrc`, X and PAM
 *   session files, `~/.gitconfig`, `~/.npmrc`, `~/.yarnrc(.yml)`, `~/.ssh` (authorized_keys), `~/.config`
 *   (autostart, systemd units, fish), `~/.local/bin` and `~/bin` (on the PATH of the next login).
 *
 * What a project holds for itself (package.json scripts, a Makefile, `.npmrc` of the project) is the task's to edit,
 * as the code it runs is: it is not listed. `.envrc` runs only once `direnv allow` is given for that very content.
 * A name that does not exist yet must not be creatable either: a placeholder stands in for it (placeholders.ts).
 *
 * The tools that write in the agent's own process (Write, Edit) ask protectedWriteReason, which applies the same list to
 * one path (it reads the disk: links).
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';

export interface ProtectedName {
  /** The path under its folder: `.bashrc`, `.git/hooks`. */
  name: string;
  dir: boolean;
  /** What a placeholder for a missing file holds: read as the file's absence would be (default: a comment only). */
  standIn?: (folder: string) => string;
}

const NOTE = '# agentloop: stands in for a missing file while a sandboxed command runs; removed after it\n';
const file = (name: string, standIn?: (folder: string) => string): ProtectedName => ({ name, dir: false, ...(standIn ? { standIn } : {}) });
const dir = (name: string): ProtectedName => ({ name, dir: true });
const quoted = (path: string) => `'${path.replaceAll("'", `'\\''`)}'`;

/** In the working directory and in each home folder the sandbox makes writable. */
export const IN_WORKING_DIRECTORY: readonly ProtectedName[] = [
  dir('.git/hooks'),
  file('.git/config'),
  // Read as "the common git folder is this one", as when it is missing.
  file('.git/commondir', () => '.\n'),
  dir('.git/modules'),
  dir('.vscode'),
  dir('.idea'),
];

/** In a home folder the sandbox makes writable (the working directory, or a home inside it). */
export const IN_HOME: readonly ProtectedName[] = [
  file('.bashrc'),
  // bash reads the first of .bash_profile, .bash_login and .profile: a placeholder goes on to the next.
  file('.bash_profile', (home) => `${NOTE}if [ -r ${quoted(join(home, '.bash_login'))} ]; then . ${quoted(join(home, '.bash_login'))}; elif [ -r ${quoted(join(home, '.profile'))} ]; then . ${quoted(join(home, '.profile'))}; fi\n`),
  file('.bash_login', (home) => `${NOTE}if [ -r ${quoted(join(home, '.profile'))} ]; then . ${quoted(join(home, '.profile'))}; fi\n`),
  file('.bash_logout'),
  file('.bash_aliases'),
  file('.profile'),
  file('.zshenv'),
  file('.zprofile'),
  file('.zshrc'),
  file('.zlogin'),
  file('.zlogout'),
  // readline reads /etc/inputrc only when ~/.inputrc is missing.
  file('.inputrc', () => `${NOTE}$include /etc/inputrc\n`),
  file('.xprofile'),
  file('.xsessionrc'),
  file('.pam_environment'),
  file('.gitconfig'),
  file('.npmrc'),
  file('.yarnrc'),
  file('.yarnrc.yml'),
  dir('.ssh'),
  dir('.config'),
  dir('.local/bin'),
  dir('bin'),
];

/** Every name a user may allow (`allowWrite`), and the folders above them (`.git` allows all of `.git/...`). */
export function allowableNames(): string[] {
  const names = [...IN_WORKING_DIRECTORY, ...IN_HOME].map((p) => p.name);
  const folders = names.flatMap((name) => name.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/')));
  return [...new Set([...folders, ...names])];
}

/** The names of `allow` that are none of allowableNames (to refuse at creation). */
export function unknownNames(allow: readonly string[]): string[] {
  const known = new Set(allowableNames());
  return allow.filter((name) => !known.has(name.replace(/\/+$/, '')));
}

export interface ProtectedPath {
  /** The absolute path. */
  path: string;
  /** The folder it is protected in (the working directory or a home): the walk to it starts there. */
  folder: string;
  entry: ProtectedName;
  /**
   * A home outside the working directory, read-only in the sandbox already: only where its name leads through links
   * (linkedTargets) is to be protected, when that lies in the working directory (a dotfiles repository).
   */
  linksOnly?: boolean;
}

/**
 * What to protect: IN_WORKING_DIRECTORY in `cwd`, and IN_WORKING_DIRECTORY and IN_HOME in each of `homes` (real
 * paths): in full where the home is `cwd` or lies inside it, through its links only elsewhere; less what `allow` names
 * (a folder allows all under it).
 */
export function protectedPaths(cwd: string, homes: readonly string[], allow: readonly string[]): ProtectedPath[] {
  const allowed = (name: string) => allow.some((a) => name === a.replace(/\/+$/, '') || name.startsWith(`${a.replace(/\/+$/, '')}/`));
  const folders = new Map<string, { entries: readonly ProtectedName[]; linksOnly: boolean }>([[cwd, { entries: IN_WORKING_DIRECTORY, linksOnly: false }]]);
  for (const home of homes) {
    const linksOnly = home !== cwd && !isInside(home, cwd);
    if (!linksOnly || !folders.has(home)) folders.set(home, { entries: [...IN_WORKING_DIRECTORY, ...IN_HOME], linksOnly });
  }
  const out: ProtectedPath[] = [];
  for (const [folder, { entries, linksOnly }] of folders) {
    for (const entry of entries) {
      if (!allowed(entry.name)) out.push({ path: join(folder, entry.name), folder, entry, ...(linksOnly ? { linksOnly } : {}) });
    }
  }
  return out;
}

/**
 * The real paths a protected path leads to through symbolic links: where a link on its way or at its end points (a
 * missing target too), and, for a folder of the list that is a folder, where each link directly in it points
 * (`~/.config/nvim` into a dotfiles repository). Deeper links are not followed (a walk of `~/.config` per command).
 */
export function linkedTargets(p: ProtectedPath): string[] {
  const targets = new Set<string>();
  let at = p.folder;
  for (const part of relative(p.folder, p.path).split(sep)) {
    at = join(at, part);
    const stats = lstatOrUndefined(at);
    if (stats === undefined) break;
    if (stats.isSymbolicLink()) {
      targets.add(realPathOf(p.path));
      break;
    }
    if (at === p.path && p.entry.dir && stats.isDirectory()) for (const child of linksIn(at)) targets.add(realPathOf(child));
  }
  return [...targets];
}

function linksIn(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isSymbolicLink()).map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The same rule for one path, for the tools that write in the agent's own process (Write, Edit).

export interface WriteContext {
  /** The working directory (as given or real). */
  cwd: string;
  /** The user's home folder. */
  home: string;
  /** Names of the list the user allows after all (`--allow-write`; `.git` allows all of `.git/...`). */
  allow?: readonly string[];
}

/**
 * Why writing `path` (relative to `cwd`, or absolute) must not happen: it is one of the protected names (or lies in
 * one, or would replace a folder that holds one) of the working directory (IN_WORKING_DIRECTORY) or of the home
 * (IN_WORKING_DIRECTORY and IN_HOME), checked as given, as its real path (links on the way followed, a link at the end
 * too, even one to a missing file) and against the real paths of the protected names (a `~/.bashrc` that links into
 * a dotfiles repository protects its target there). null: nothing of the list; the write may go on.
 */
export function protectedWriteReason(path: string, context: WriteContext): string | null {
  const given = resolve(context.cwd, path);
  const written = [...new Set([given, realPathOf(given)])];
  const folders = [...new Set([context.cwd, realPathOf(resolve(context.cwd))])];
  const homes = [...new Set([resolve(context.home), realPathOf(resolve(context.home))])];
  const paths = [...folders.flatMap((f) => protectedPaths(f, [], context.allow ?? [])), ...homes.flatMap((h) => protectedPaths(h, [h], context.allow ?? []))];
  for (const p of paths) {
    for (const target of [...new Set([p.path, realPathOf(p.path), ...linkedTargets(p)])]) {
      const hit = written.find((w) => w === target || isInside(w, target) || (isInside(target, w) && isInside(w, p.folder)));
      if (hit === undefined) continue;
      const where = p.path === target ? '' : ` (where ${p.path} leads)`;
      return `${given} is protected${where}: ${p.entry.name} in ${p.folder} runs later, outside the agent (src/tools/bash/run/protect.ts; --allow-write ${p.entry.name} allows it)`;
    }
  }
  return null;
}

function isInside(path: string, folder: string): boolean {
  return path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

/**
 * The real path of `path`, also when it does not exist (yet): the real path of its deepest existing folder with the
 * rest joined on, a link at any step followed (a dangling one to where it points), at most 40 links deep.
 */
export function realPathOf(path: string): string {
  let rest: string[] = [];
  let at = path;
  for (let hops = 0; hops < 40; ) {
    const stats = lstatOrUndefined(at);
    if (stats?.isSymbolicLink()) {
      hops++;
      at = resolve(dirname(at), readlinkSync(at));
      continue;
    }
    if (stats !== undefined) {
      try {
        return join(realpathSync.native(at), ...rest);
      } catch {
        return join(at, ...rest);
      }
    }
    const parent = dirname(at);
    if (parent === at) break;
    rest = [basename(at), ...rest];
    at = parent;
  }
  return join(at, ...rest);
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
