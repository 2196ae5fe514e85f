/**
 * Claude Code's settings files' `env` and `model` for a CLI run (../../settings/envModel.ts), applied before anything
 * reads the environment: the variables are set in this process's environment (the model client, bash commands and MCP
 * servers take theirs from it), and the files' model becomes the run's `--model` when neither `--model` nor a model
 * variable names one. A `--settings` that cannot be read is left to the permissions' reading of the same files, which
 * refuses it in one line.
 */
import { resolve } from 'node:path';
import { loadModelSettings } from '../../anthropic/settings.js';
import { resolveModel } from '../../core/models.js';
import { settingsEnvAndModel } from '../../settings/envModel.js';
import { loadClaudeSettings, SettingsError } from '../../settings/files.js';
import type { CliOptions } from '../commandLine/args.js';

export function withClaudeSettings(options: CliOptions, dir: string, env: NodeJS.ProcessEnv, warn: (line: string) => void): CliOptions {
  if (options.demo) return options;
  const cwd = resolve(dir);
  let files;
  try {
    // Its warnings (a file that is not JSON) are said once, by the permissions' reading.
    files = loadClaudeSettings({ cwd, env, ...(options.settingSources ? { sources: options.settingSources } : {}), ...(options.settings !== undefined ? { flag: options.settings } : {}) });
  } catch (error) {
    if (error instanceof SettingsError) return options;
    throw error;
  }
  const interactive = !options.print;
  const { env: vars, model, notes } = settingsEnvAndModel(files, interactive);
  for (const note of notes) warn(note);
  Object.assign(env, vars);
  if (model === undefined || options.model !== undefined || loadModelSettings(env, cwd).model !== undefined) return options;
  return { ...options, model: resolveModel(model) };
}
