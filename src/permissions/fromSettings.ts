/**
 * The permissions of Claude Code's settings files (src/settings/), as Claude Code 2.1.197 takes them (recorded:
 * test/permissions/claudeSettings.json): every file's `permissions.allow`, `deny` and `ask` rules, with the file they
 * came from; `defaultMode` of the nearest file that sets one (--settings, local, project, user); every file's
 * `additionalDirectories`. A project not trusted (`hasTrustDialogAccepted`) gives no allow rule and no additional
 * directory from `.claude/settings.json`, nor from `.claude/settings.local.json` unless git says that file is the
 * user's own: a cloned repository cannot approve its own commands. Its deny and ask rules and its mode hold. A rule
 * that does not parse is left out, with one line.
 */
import type { Tool } from '../core/tool.js';
import type { ClaudeSettings, SettingsFile } from '../settings/files.js';
import { isValidRule, type SourcedRule } from './gate.js';
import { PERMISSION_MODES, type PermissionMode } from './modes.js';

export interface SettingsPermissions {
  rules: SourcedRule[];
  /** The mode the nearest file sets, and that file. */
  mode?: { mode: PermissionMode; source: string };
  additionalDirectories: string[];
  /** Lines for stderr: what was left out and why. */
  notes: string[];
}

const EFFECTS = ['allow', 'deny', 'ask'] as const;
const FILE_NAMES: Record<string, string> = { projectSettings: '.claude/settings.json', localSettings: '.claude/settings.local.json' };

/** The permissions of `settings` (see above); `tools` check the specifiers of the rules that name them. */
export function settingsPermissions(settings: ClaudeSettings, tools: readonly Tool[] = []): SettingsPermissions {
  const notes: string[] = [];
  const untrusted = untrustedFiles(settings);
  const rules: SourcedRule[] = [];
  const dropped = { allow: new Set<string>(), dirs: new Set<string>() };
  let counts = { allow: 0, dirs: 0 };
  const additionalDirectories: string[] = [];
  let mode: SettingsPermissions['mode'];
  for (const file of settings.files) {
    const permissions = record(file.settings.permissions);
    const label = file.path ?? '--settings';
    for (const effect of EFFECTS) {
      for (const rule of strings(permissions[effect])) {
        if (effect === 'allow' && untrusted.has(file)) {
          counts = { ...counts, allow: counts.allow + 1 };
          dropped.allow.add(FILE_NAMES[file.source] as string);
        } else if (!isValidRule(rule, tools)) notes.push(`agentloop: ${label}: permissions.${effect} ${JSON.stringify(rule)} is not a valid rule: left out`);
        else rules.push({ rule, effect, source: file.source, ...(file.path ? { path: file.path } : {}) });
      }
    }
    const dirs = strings(permissions.additionalDirectories);
    if (untrusted.has(file) && dirs.length > 0) {
      counts = { ...counts, dirs: counts.dirs + dirs.length };
      dropped.dirs.add(FILE_NAMES[file.source] as string);
    } else additionalDirectories.push(...dirs);
    const fileMode = modeOf(permissions.defaultMode, label, notes);
    if (fileMode !== undefined) mode = { mode: fileMode, source: file.source };
  }
  if (counts.allow > 0) notes.push(ignoredLine('permissions.allow', counts.allow, dropped.allow, settings));
  if (counts.dirs > 0) notes.push(ignoredLine('permissions.additionalDirectories', counts.dirs, dropped.dirs, settings));
  return { rules, ...(mode ? { mode } : {}), additionalDirectories, notes };
}

/** The files whose allow rules and directories a project not trusted does not give. */
function untrustedFiles(settings: ClaudeSettings): Set<SettingsFile> {
  const out = new Set<SettingsFile>();
  if (settings.trusted) return out;
  for (const file of settings.files) {
    if (file.source === 'projectSettings' && !settings.projectIsUsers) out.add(file);
    if (file.source === 'localSettings' && settings.localMayBeShared()) out.add(file);
  }
  return out;
}

function modeOf(value: unknown, label: string, notes: string[]): PermissionMode | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (PERMISSION_MODES as readonly string[]).includes(value)) return value as PermissionMode;
  notes.push(`agentloop: ${label}: permissions.defaultMode ${JSON.stringify(value)} is not one of ${PERMISSION_MODES.join(', ')}: left out`);
  return undefined;
}

/** Claude Code's line for what a project not trusted did not give. */
function ignoredLine(what: string, count: number, files: Set<string>, settings: ClaudeSettings): string {
  const from = files.size > 0 ? [...files].join(' and ') : '.claude/ settings';
  return (
    `agentloop: Ignoring ${count} ${what} ${count === 1 ? 'entry' : 'entries'} from ${from}: this workspace has not been trusted. ` +
    `Run Claude Code interactively here once and accept the trust dialog, or set projects[${JSON.stringify(settings.projectKey)}].hasTrustDialogAccepted: true in ${settings.claudeJson}.`
  );
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
