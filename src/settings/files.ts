/**
 * Claude Code's settings files, read as Claude Code reads them: the user's (`~/.claude/settings.json`, or
 * `$CLAUDE_CONFIG_DIR/settings.json`), the project's (`.claude/settings.json`), the local one
 * (`.claude/settings.local.json`), chosen by `--setting-sources` (user, project, local; all three by default), and
 * `--settings FILE|JSON` (always read). Later ones win (user < project < local < --settings) where a key is set in
 * several: objects merge key by key, lists join. Each file is kept with where it came from, for the rules a
 * setting's source decides (src/permissions/fromSettings.ts) and for what `/permissions` shows. A file that is
 * missing is no file; one that is not a JSON object is left out with one line through `warn`; nothing throws, but a
 * bad `--settings`, which is the user's own word (SettingsError).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { claudeConfigDir, claudeJsonPath, isTrustedProject, localFileMayBeShared, projectKeyOf, type SettingsEnv } from './trust.js';

/** Claude Code's names of the settings sources. */
export type SettingsSource = 'userSettings' | 'projectSettings' | 'localSettings' | 'flagSettings';

export interface SettingsFile {
  source: SettingsSource;
  /** The file (none for `--settings JSON`). */
  path?: string;
  settings: Record<string, unknown>;
}

export interface ClaudeSettings {
  /** The files read, in order of precedence, lowest first. */
  files: SettingsFile[];
  /** Their settings merged (later over earlier). */
  merged: Record<string, unknown>;
  /** `~/.claude.json` records the project as trusted. */
  trusted: boolean;
  /** The project's key in `~/.claude.json`, and that file. */
  projectKey: string;
  claudeJson: string;
  /** The project's file is the user's own (the working directory is the home). */
  projectIsUsers: boolean;
  /** The local file may be the repository's (./trust.ts); asked only when needed. */
  localMayBeShared: () => boolean;
}

export interface SettingsOptions {
  cwd: string;
  env: SettingsEnv;
  /** `--setting-sources`: user, project, local; all three when undefined. */
  sources?: readonly string[];
  /** `--settings`: a file's path or a JSON object's text. */
  flag?: string;
  warn?: (line: string) => void;
}

/** A `--settings` that cannot be read: the run does not start. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

/** Reads the settings files (see above). */
export function loadClaudeSettings(options: SettingsOptions): ClaudeSettings {
  const warn = options.warn ?? (() => undefined);
  const read = (source: string) => options.sources === undefined || options.sources.includes(source);
  const userPath = join(claudeConfigDir(options.env), 'settings.json');
  const projectPath = join(options.cwd, '.claude', 'settings.json');
  const files: SettingsFile[] = [];
  const add = (source: SettingsSource, path: string) => {
    const settings = readJsonFile(path, warn);
    if (settings !== null && !files.some((f) => f.path === resolve(path))) files.push({ source, path: resolve(path), settings });
  };
  if (read('user')) add('userSettings', userPath);
  if (read('project')) add('projectSettings', projectPath);
  if (read('local')) add('localSettings', join(options.cwd, '.claude', 'settings.local.json'));
  if (options.flag !== undefined) files.push(flagSettings(options.flag, options.cwd));
  let shared: boolean | undefined;
  return {
    files,
    merged: files.reduce<Record<string, unknown>>((merged, file) => mergeSettings(merged, file.settings), {}),
    trusted: isTrustedProject(options.cwd, options.env),
    projectKey: projectKeyOf(options.cwd),
    claudeJson: claudeJsonPath(options.env),
    projectIsUsers: resolve(projectPath) === resolve(userPath),
    localMayBeShared: () => (shared ??= localFileMayBeShared(options.cwd)),
  };
}

/** `--settings`: JSON when it starts with `{`, else a file (relative to `cwd`). */
function flagSettings(text: string, cwd: string): SettingsFile {
  const json = text.trim().startsWith('{');
  const path = json ? undefined : resolve(cwd, text);
  let raw = text;
  if (path !== undefined) {
    try {
      raw = readFileSync(path, 'utf8');
    } catch (error) {
      throw new SettingsError(`--settings: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  const settings = parseObject(raw);
  if (settings === null) throw new SettingsError(`--settings: ${path ?? 'the JSON given'} is not a JSON object`);
  return { source: 'flagSettings', ...(path !== undefined ? { path } : {}), settings };
}

/** A settings file's object; null when it is missing or not a JSON object (then one line through `warn`). */
function readJsonFile(path: string, warn: (line: string) => void): Record<string, unknown> | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EACCES') warn(`agentloop: cannot read ${path} (${code ?? (error as Error).message}): its settings are left out`);
    return null;
  }
  if (text.trim() === '') return null;
  const settings = parseObject(text);
  if (settings === null) warn(`agentloop: ${path} is not a JSON object: its settings are left out`);
  return settings;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** `over` merged into `base`: objects key by key, lists joined (without repeats), anything else replaced. */
export function mergeSettings(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const old = merged[key];
    if (Array.isArray(old) && Array.isArray(value)) merged[key] = [...old, ...value.filter((v) => !old.includes(v))];
    else if (isObject(old) && isObject(value)) merged[key] = mergeSettings(old, value);
    else merged[key] = value;
  }
  return merged;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
