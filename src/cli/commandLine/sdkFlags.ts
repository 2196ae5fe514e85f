/**
 * The flags the Claude Agent SDK passes to its engine (its options, as `query()` spawns the CLI) that are not
 * agentloop's own: taken and honoured where agentloop can, each refused with one line saying why where it cannot
 * (docs/agent-sdk.md lists them). Entries of ./options.ts's table.
 */
import { defaultRunConfig } from '../../core/config.js';
import { MIN_THINKING_BUDGET, type ThinkingDisplay, type ThinkingSetting } from '../../core/thinking.js';
import { UsageError } from './argValues.js';

const SETTING_SOURCES = ['user', 'project', 'local'];

/** Retries of a failed model call in a CLI run without `--max-retries`: Claude Code's 10 (the library's default is 4). */
export const CLI_MAX_RETRIES = 10;

/** `--setting-sources user,project`: which of Claude Code's settings files to read (their permissions, env, model, CLAUDE.md and MCP servers). */
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

/**
 * `--tools default|""|A,B` (the Agent SDK's `tools`): the names by commas or spaces; `default` in any case is
 * `default`. The empty value (`--tools=`, what the SDK sends for `tools: []`) is no name: no built-in tool.
 */
export function toolNames(texts: readonly string[]): string[] {
  const names = texts.flatMap((text) => text.split(/[\s,]+/)).filter((name) => name !== '');
  return names.map((name) => (name.toLowerCase() === 'default' ? 'default' : name));
}

/** A flag agentloop cannot honour: its parse refuses it with `why`, so that nothing is silently ignored. */
export function refusedFlag(why: string): (text: string, flag: string) => never {
  return (_text, flag) => {
    throw new UsageError(`${flag} is not supported: ${why}`);
  };
}

/** `--thinking adaptive|enabled|disabled`: as Claude Code, `enabled` (the Agent SDK's thinking with no budget) is `adaptive`. */
export function thinkingMode(text: string, flag: string): 'adaptive' | 'disabled' {
  if (text === 'adaptive' || text === 'enabled') return 'adaptive';
  if (text === 'disabled') return 'disabled';
  throw new UsageError(`${flag} must be adaptive, enabled or disabled, not "${text}"`);
}

/** `--max-thinking-tokens N`: 0 turns thinking off; otherwise at least the API's least budget_tokens. */
export function thinkingBudget(text: string, flag: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new UsageError(`${flag} takes a whole number of tokens, not "${text}"`);
  if (n > 0 && n < MIN_THINKING_BUDGET) throw new UsageError(`${flag} ${n} is below ${MIN_THINKING_BUDGET}, the least thinking budget the API takes (0 turns thinking off)`);
  return n;
}

/** The flags that set thinking, as ./options.ts parsed them. */
export interface ThinkingFlags {
  thinking?: 'adaptive' | 'disabled';
  maxThinkingTokens?: number;
  thinkingDisplay?: ThinkingDisplay;
  maxTokens?: number;
}

/**
 * The run's thinking and, with a budget and no `--max-tokens`, its max_tokens: the budget on top of the default's
 * room for the answer (thinking counts within max_tokens; Claude Code's max_tokens is the model's whole output
 * limit, agentloop's default only 8000). `--thinking` goes before `--max-thinking-tokens`, as in Claude Code.
 */
export function thinkingOf(flags: ThinkingFlags): { thinking?: ThinkingSetting; maxTokens?: number } {
  const budget = flags.thinking === undefined ? (flags.maxThinkingTokens ?? 0) : 0;
  if (flags.thinking !== 'adaptive' && budget === 0) return {};
  const display = flags.thinkingDisplay !== undefined ? { display: flags.thinkingDisplay } : {};
  if (budget === 0) return { thinking: display };
  const maxTokens = flags.maxTokens === undefined ? { maxTokens: budget + defaultRunConfig.maxTokens } : {};
  return { thinking: { budgetTokens: budget, ...display }, ...maxTokens };
}

/** A budget the given `--max-tokens` has no room for is refused: the API would refuse every request. */
export function checkThinkingRoom(flags: ThinkingFlags): void {
  const { budgetTokens } = thinkingOf(flags).thinking ?? {};
  if (budgetTokens === undefined || flags.maxTokens === undefined || budgetTokens < flags.maxTokens) return;
  throw new UsageError(`--max-thinking-tokens ${budgetTokens} must be less than --max-tokens ${flags.maxTokens}: thinking counts within max_tokens (raise --max-tokens, or leave it out for ${budgetTokens} + ${defaultRunConfig.maxTokens})`);
}
