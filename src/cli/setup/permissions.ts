/**
 * The command line's permission gate (src/permissions/gate.ts): `--permission-mode` (`--dangerously-skip-permissions`),
 * `--allowedTools`, `--disallowedTools` and `--add-dir`, built once per entry point with its asker: none for `-p` (a call
 * the mode would not run is denied and listed in `permission_denials`), the terminal in the REPL (../repl/replAsk.ts), the
 * Agent SDK's can_use_tool with `--permission-prompt-tool stdio` (../control/session.ts). A denied call never runs; the
 * model gets an `is_error` result naming why ("Not run: denied by rule Bash(rm:*)"), and the run a `permission_denied`
 * event, from which the outputs come (../printers/denials.ts).
 */
import type { Tool } from '../../core/tool.js';
import { createPermissionGate, PermissionError, type PermissionGate, type SourcedRule } from '../../permissions/gate.js';
import type { PermissionMode } from '../../permissions/modes.js';
import { RootBypassError, refusesBypassMode } from '../../permissions/root.js';
import { settingsPermissions } from '../../permissions/fromSettings.js';
import { loadClaudeSettings } from '../../settings/files.js';

export { ROOT_BYPASS_REFUSAL } from '../../permissions/root.js';

type PermissionOptions = {
  allowedTools?: string[];
  disallowedTools?: string[];
  permissionMode?: PermissionMode;
  permissionPromptTool?: string;
  addDir?: string[];
};

/**
 * The mode a run's calls are judged in: the one given (`--permission-mode`, `--dangerously-skip-permissions`), else
 * `default`, Claude Code's (docs/cli.md#permissions---allowedtools---disallowedtools---permission-mode).
 */
export function permissionModeOf(options: PermissionOptions): PermissionMode {
  return options.permissionMode ?? 'default';
}

/**
 * Whether the flags ask for every call to run (`--dangerously-skip-permissions`, `--permission-mode
 * bypassPermissions`, `--allow-dangerously-skip-permissions`) as root outside a sandbox: Claude Code refuses them
 * then, unless `IS_SANDBOX=1` (or `CLAUDE_CODE_BUBBLEWRAP`) says the machine is one. The gate refuses the mode itself
 * (permissions/root.ts); this is the flag's early word, before anything starts.
 */
export function refusesBypass(
  options: { permissionMode?: PermissionMode; allowDangerouslySkipPermissions?: boolean },
  env: NodeJS.ProcessEnv,
  uid: number | undefined = process.getuid?.(),
): boolean {
  const asked = options.permissionMode === 'bypassPermissions' || options.allowDangerouslySkipPermissions === true;
  return asked && refusesBypassMode('bypassPermissions', env, uid);
}

/** What Claude Code's settings files give the gate (../settings/). */
export interface GateSettings {
  rules?: SourcedRule[];
  mode?: PermissionMode;
  additionalDirectories?: string[];
}

/**
 * The gate of a CLI run: Claude Code's settings files (`--setting-sources`, `--settings`: ../settings/), then the flags
 * (`--permission-mode` over the files' `defaultMode`). What the files leave out is said through `warn`. Throws a
 * RuleError (a bad flag rule), a SettingsError (a bad --settings), or the root rule's RootBypassError.
 */
export function cliPermissionGate(
  options: PermissionOptions & { settingSources?: string[]; settings?: string },
  cwd: string,
  env: NodeJS.ProcessEnv,
  tools: Tool[],
  warn: (line: string) => void,
): PermissionGate {
  const files = loadClaudeSettings({ cwd, env, ...(options.settingSources ? { sources: options.settingSources } : {}), ...(options.settings !== undefined ? { flag: options.settings } : {}), warn });
  const fromFiles = settingsPermissions(files, tools);
  for (const note of fromFiles.notes) warn(note);
  const settings: GateSettings = { rules: fromFiles.rules, additionalDirectories: fromFiles.additionalDirectories, ...(fromFiles.mode ? { mode: fromFiles.mode.mode } : {}) };
  return permissionGate(options, cwd, tools, settings, env);
}

/** A rule that does not parse: printed as a usage error. */
export class RuleError extends Error {
  override readonly name = 'RuleError';
}

/**
 * The gate of the flags (and of `settings`' rules, which come first: ../settings/): no asker yet (each entry point
 * gives its own with `withAsker`); `tools` check the specifiers of the rules that name them. Throws a RuleError naming
 * the flag of a bad rule, or the refusal of the root rule.
 */
export function permissionGate(options: PermissionOptions, cwd: string, tools: Tool[], settings: GateSettings = {}, env?: NodeJS.ProcessEnv): PermissionGate {
  for (const [flag, effect, rules] of [['--allowedTools', 'allow', options.allowedTools], ['--disallowedTools', 'deny', options.disallowedTools]] as const) {
    try {
      createPermissionGate({ cwd, tools, [effect]: rules ?? [] });
    } catch (error) {
      throw new RuleError(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  try {
    return createPermissionGate({
      cwd,
      tools,
      ...(env ? { env } : {}),
      mode: options.permissionMode ?? settings.mode ?? 'default',
      sourced: settings.rules ?? [],
      allow: options.allowedTools ?? [],
      deny: options.disallowedTools ?? [],
      additionalDirectories: [...(settings.additionalDirectories ?? []), ...(options.addDir ?? [])],
    });
  } catch (error) {
    if (error instanceof PermissionError && !(error instanceof RootBypassError)) throw new RuleError(error.message);
    throw error;
  }
}
