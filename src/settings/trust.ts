/**
 * Where Claude Code keeps its configuration and how it records that a project is trusted (what Claude Code 2.1.197
 * does, read from its bundle and recorded: test/permissions/claudeSettings.json):
 *
 * - `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json` when that is set) holds `projects[<key>]`, the key being the
 *   git repository's top folder (a linked worktree's main one), else the working directory;
 * - a project is trusted when its entry says `hasTrustDialogAccepted: true` (the REPL's trust dialog writes it);
 * - the local settings file counts as the user's own in a project not trusted only when git says so: the project is
 *   a repository, `.claude/settings.local.json` is not tracked, and neither it nor `.claude` is a link (nor is there a
 *   `.claude/.git`). Otherwise a cloned repository could carry it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, parse, resolve } from 'node:path';

/** `HOME`, `CLAUDE_CONFIG_DIR`. */
export type SettingsEnv = Readonly<Record<string, string | undefined>>;

/** The folder of the user's settings (`~/.claude`, or `$CLAUDE_CONFIG_DIR`). */
export function claudeConfigDir(env: SettingsEnv): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
}

/** `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json` when that is set). */
export function claudeJsonPath(env: SettingsEnv): string {
  return join(env.CLAUDE_CONFIG_DIR || env.HOME || homedir(), '.claude.json');
}

/** Whether `~/.claude.json` records the project of `cwd` as trusted. */
export function isTrustedProject(cwd: string, env: SettingsEnv): boolean {
  try {
    const json = JSON.parse(readFileSync(claudeJsonPath(env), 'utf8')) as { projects?: Record<string, { hasTrustDialogAccepted?: unknown }> };
    return json.projects?.[projectKeyOf(cwd)]?.hasTrustDialogAccepted === true;
  } catch {
    return false;
  }
}

/**
 * The key of the project in ~/.claude.json: the top folder of the git repository holding `cwd` (for a linked
 * worktree, its main repository's), else `cwd`.
 */
export function projectKeyOf(cwd: string): string {
  for (let folder = resolve(cwd); ; folder = dirname(folder)) {
    const dotGit = join(folder, '.git');
    if (existsSync(dotGit)) return mainWorktreeOf(folder, dotGit);
    if (folder === parse(folder).root) return resolve(cwd);
  }
}

/** `folder` itself, or when its `.git` is a linked worktree's file (`gitdir: …/.git/worktrees/NAME`), the main one. */
function mainWorktreeOf(folder: string, dotGit: string): string {
  try {
    const text = readFileSync(dotGit, 'utf8').trim();
    if (!text.startsWith('gitdir:')) return folder;
    const gitDir = resolve(folder, text.slice('gitdir:'.length).trim());
    const common = resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
    if (dirname(gitDir) !== join(common, 'worktrees') || basename(common) !== '.git') return folder;
    return dirname(common);
  } catch {
    return folder; // a folder (a plain repository), or a worktree file that does not say more
  }
}

/** Whether `.claude/settings.local.json` of `cwd` may be the repository's rather than the user's own (see above). */
export function localFileMayBeShared(cwd: string): boolean {
  for (const path of [join(cwd, '.claude'), join(cwd, '.claude', 'settings.local.json')]) {
    try {
      if (lstatSync(path).isSymbolicLink()) return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return true;
    }
  }
  if (existsSync(join(cwd, '.claude', '.git'))) return true;
  const git = spawnSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=', '-C', cwd, 'ls-files', '--error-unmatch', '--', ':(icase).claude/settings.local.json'], {
    cwd,
    encoding: 'utf8',
    timeout: 2000,
    env: { ...process.env, GIT_LITERAL_PATHSPECS: '' },
  });
  if ((git.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return false; // no git: nothing can track it
  if (git.error !== undefined || git.signal !== null || git.status === 128) return true;
  return git.status === 0;
}
