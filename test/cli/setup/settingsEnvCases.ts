/**
 * Cases of Claude Code's settings files' `env` and `model` (user, project, local, `--settings`, the shell's own
 * variables, `--model`, `ANTHROPIC_MODEL`, `--setting-sources`), shared by ./recordSettingsEnv.ts, which records what
 * Claude Code 2.1.197 does in each into ./claudeSettingsEnv.json, and ./settingsEnv.process.test.ts, which holds agentloop to
 * it: the model of the first request, and what a command sees (`echo` of the variables).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SettingsEnvCase {
  name: string;
  user?: object;
  project?: object;
  local?: object;
  args?: string[];
  env?: Record<string, string>;
}

export const SHOWN = ['FOO', 'BAR', 'BAZ', 'QUX', 'ANTHROPIC_MODEL'];
export const COMMAND = `echo "${SHOWN.map((name) => `${name}=$${name}`).join(' ')}"`;

export const CASES: SettingsEnvCase[] = [
  {
    name: 'every file and --settings: later files win, over the shell',
    user: { env: { FOO: 'user', BAR: 'user' }, model: 'claude-opus-4-1' },
    project: { env: { FOO: 'project' } },
    local: { env: { BAZ: 'local' } },
    args: ['--settings', JSON.stringify({ env: { FOO: 'flag' }, model: 'claude-haiku-4-5' })],
    env: { FOO: 'shell', BAR: 'shell', QUX: 'shell' },
  },
  { name: 'ANTHROPIC_MODEL of the shell over the files’ model', user: { model: 'claude-opus-4-1' }, env: { ANTHROPIC_MODEL: 'claude-sonnet-4-5' } },
  { name: '--model over the files’ model', user: { model: 'claude-opus-4-1' }, args: ['--model', 'claude-sonnet-4-5'] },
  { name: 'ANTHROPIC_MODEL of a file’s env over its model', user: { model: 'claude-opus-4-1', env: { ANTHROPIC_MODEL: 'claude-sonnet-4-5' } } },
  { name: '--setting-sources project leaves the user’s env out', user: { env: { FOO: 'user' }, model: 'claude-opus-4-1' }, project: { env: { BAR: 'project' } }, args: ['--setting-sources', 'project'] },
  { name: 'local’s model over the project’s', project: { model: 'claude-opus-4-1', env: { FOO: 'project' } }, local: { model: 'claude-sonnet-4-5' } },
  { name: 'a --settings file', args: ['--settings', 'flag-settings.json'], env: { QUX: 'shell' } },
];

/** The flag file of the last case, written in the project. */
const FLAG_FILE = { env: { QUX: 'from a file', BAR: 42 }, model: 'claude-haiku-4-5' };

/** A fresh home (with `.claude/`) and project for `c`, its files written. */
export function setUp(c: SettingsEnvCase): { root: string; home: string; dir: string } {
  const root = mkdtempSync(join(tmpdir(), 'settings-env-'));
  const home = join(root, 'home');
  const dir = join(root, 'project');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(join(dir, '.claude'), { recursive: true });
  if (c.user) writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify(c.user));
  if (c.project) writeFileSync(join(dir, '.claude', 'settings.json'), JSON.stringify(c.project));
  if (c.local) writeFileSync(join(dir, '.claude', 'settings.local.json'), JSON.stringify(c.local));
  writeFileSync(join(dir, 'flag-settings.json'), JSON.stringify(FLAG_FILE));
  return { root, home, dir };
}

export interface SettingsEnvOutcome {
  model: string | undefined;
  /** What the command printed (the tool_result's text). */
  seen: string | undefined;
}
