import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { resolveModel } from '../core/models.js';

/** How to reach the model, as read from the environment and `.env`. */
export interface ModelSettings {
  apiKey?: string;
  authToken?: string;
  baseURL?: string;
  model?: string;
}

/** Environment variables, as `process.env` holds them (typed without Node's types, for the published .d.ts). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** A setting the user must provide is missing: the message says what to set. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads `.env` in `cwd` if there is one; a missing file is no error. */
export function readDotEnv(cwd: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(join(cwd, '.env'), 'utf8');
  } catch {
    return {};
  }
  return parseEnv(text) as Record<string, string>;
}

/**
 * Model settings from the environment, then `.env` in `cwd` (the environment wins), then
 * `overrides` (command-line flags) over both. The model is MODEL_ID, else Claude Code's ANTHROPIC_MODEL; an alias
 * there (`sonnet`) resolves as `--model sonnet` does.
 */
export function loadModelSettings(
  env: Environment,
  cwd: string,
  overrides: { model?: string | undefined } = {},
): ModelSettings {
  const merged = { ...readDotEnv(cwd), ...definedOnly(env) };
  const settings: ModelSettings = {};
  if (merged.ANTHROPIC_API_KEY) settings.apiKey = merged.ANTHROPIC_API_KEY;
  if (merged.ANTHROPIC_AUTH_TOKEN) settings.authToken = merged.ANTHROPIC_AUTH_TOKEN;
  if (merged.ANTHROPIC_BASE_URL) settings.baseURL = merged.ANTHROPIC_BASE_URL;
  const fromEnv = merged.MODEL_ID ?? merged.ANTHROPIC_MODEL;
  const model = overrides.model ?? (fromEnv === undefined ? undefined : resolveModel(fromEnv));
  if (model) settings.model = model;
  return settings;
}

/**
 * Throws a `ConfigError` naming everything to set at once when the key, the model or both are missing; `demo` is the
 * command it offers for a run offline (the CLI gives the one that runs as printed: cli/commandLine/self.ts).
 */
export function requireModelSettings(settings: ModelSettings, demo = 'agentloop --demo'): Required<Pick<ModelSettings, 'model'>> & ModelSettings {
  const noKey = !settings.apiKey && !settings.authToken;
  if (noKey && !settings.model) {
    throw new ConfigError(
      `No API key and no model: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) and MODEL_ID (or --model sonnet) in the environment or in .env, or run \`${demo}\` to try it offline.`,
    );
  }
  if (noKey) {
    throw new ConfigError(
      `No API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in the environment or in .env, or run \`${demo}\` to try it offline.`,
    );
  }
  if (!settings.model) {
    throw new ConfigError('No model: set MODEL_ID in the environment or in .env, or pass --model (e.g. --model sonnet, or a full id).');
  }
  return { ...settings, model: settings.model };
}

function definedOnly(env: Environment): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
}
