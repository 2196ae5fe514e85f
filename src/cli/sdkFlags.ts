/**
 * The flags the Claude Agent SDK passes to its engine (its options, as `query()` spawns the CLI) that are not
 * agentloop's own: taken and honoured where agentloop can, each refused with one line saying why where it cannot
 * (docs/agent-sdk.md lists them). Entries of ./options.ts's table.
 */
import { UsageError } from './argValues.js';

const SETTING_SOURCES = ['user', 'project', 'local'];

/** Retries of a failed model call in a CLI run without `--max-retries`: Claude Code's 10 (the library's default is 4). */
export const CLI_MAX_RETRIES = 10;

/** `--setting-sources user,project`: which of Claude Code's settings files to read (agentloop reads none of them). */
export function settingSources(texts: readonly string[], flag: string): string[] {
  const sources = texts.flatMap((text) => text.split(',')).map((source) => source.trim()).filter((source) => source !== '');
  const bad = sources.find((source) => !SETTING_SOURCES.includes(source));
  if (bad !== undefined) throw new UsageError(`${flag} takes ${SETTING_SOURCES.join(', ')} (by commas), not "${bad}"`);
  return sources;
}

/** `--add-dir DIR`: more directories the tools may work in (acceptEdits' file commands), none empty. */
export function addDirs(texts: readonly string[], flag: string): string[] {
  if (texts.some((text) => text.trim() === '')) throw new UsageError(`${flag} takes a directory, not an empty value`);
  return texts.map((text) => text.trim());
}

/** A flag agentloop cannot honour: its parse refuses it with `why`, so that nothing is silently ignored. */
export function refusedFlag(why: string): (text: string, flag: string) => never {
  return (_text, flag) => {
    throw new UsageError(`${flag} is not supported: ${why}`);
  };
}

/** `--thinking disabled` is what agentloop does; `adaptive` or `enabled` it cannot. */
export function thinking(text: string, flag: string): 'disabled' {
  if (text === 'disabled') return 'disabled';
  throw new UsageError(`${flag} ${text} is not supported: agentloop does not ask for extended thinking (the Agent SDK's thinking option); disabled is what it does`);
}

export const REFUSED = {
  maxThinkingTokens: refusedFlag('agentloop does not ask for extended thinking (the Agent SDK\'s maxThinkingTokens / thinking)'),
  effort: refusedFlag('agentloop sends no effort setting (the Agent SDK\'s effort option)'),
  betas: refusedFlag('agentloop sends no beta headers (the Agent SDK\'s betas option)'),
  agent: refusedFlag('agentloop has no subagents (the Agent SDK\'s agent option)'),
  pluginDir: refusedFlag('agentloop has no plugins (the Agent SDK\'s plugins option)'),
} as const;
