/**
 * What Claude Code's settings files set besides permissions, as Claude Code 2.1.197 applies them (recorded:
 * test/cli/setup/claudeSettingsEnv.json): `env`, each file's variables merged in the files' order (user < project < local <
 * `--settings`), set over the process's own environment, so that the run, its model client and its tools (bash, MCP
 * servers) see them; and `model`, the run's model when neither `--model` nor a model variable (`ANTHROPIC_MODEL`,
 * agentloop's `MODEL_ID`, from the environment, the files' `env` or `.env`) names one. A value that is not a string
 * (a number, a boolean) is set as its text, anything else left out. In an interactive session (the REPL) a project's
 * file whose project is not trusted (`hasTrustDialogAccepted`) sets no variable, as it gives no allow rule: a
 * repository does not point the user's key at its own server; Claude Code's `-p` skips the trust dialog, and so does
 * agentloop's.
 */
import type { ClaudeSettings } from './files.js';

export interface SettingsEnvModel {
  /** The variables to set, the later files' over the earlier ones'. */
  env: Record<string, string>;
  /** The files' `model`, when one is a non-empty string. */
  model?: string;
  /** What was left out and why, a line each. */
  notes: string[];
}

export function settingsEnvAndModel(settings: ClaudeSettings, interactive: boolean): SettingsEnvModel {
  const env: Record<string, string> = {};
  const notes: string[] = [];
  for (const file of settings.files) {
    const vars = file.settings.env;
    if (typeof vars !== 'object' || vars === null || Array.isArray(vars)) continue;
    if (interactive && file.source === 'projectSettings' && !settings.trusted && !settings.projectIsUsers) {
      notes.push(`agentloop: the env of ${file.path ?? 'the project settings'} is not applied: this workspace has not been trusted.`);
      continue;
    }
    for (const [name, value] of Object.entries(vars as Record<string, unknown>)) {
      if (typeof value === 'string') env[name] = value;
      else if (typeof value === 'number' || typeof value === 'boolean') env[name] = String(value);
    }
  }
  const model = settings.merged.model;
  return { env, ...(typeof model === 'string' && model.trim() !== '' ? { model: model.trim() } : {}), notes };
}
