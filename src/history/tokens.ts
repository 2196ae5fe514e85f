/**
 * Estimating a request's tokens before it is sent, to compact before the API would refuse it, as Claude Code does:
 * the tokens the API counted for the last accepted request and its reply (input, cache reads and writes, output), plus
 * an estimate of what was appended since. The estimate is the JSON text's length / 4: the API counts the blocks'
 * structure too, which JSON holds and plain text does not, and 4 characters a token is Claude Code's rule for English
 * and code. It can fall short of the real count (dense text, many short tokens), which the threshold's margin covers;
 * a request refused anyway makes the loop compact then (docs/loop.md, "Compaction").
 */
import type { CompactionSetting } from '../core/config.js';
import type { MessageParam } from '../core/messages.js';
import type { Usage } from '../core/usage.js';

/** The estimated tokens of a value sent to the API (a message, the tools, the system prompt). */
export function jsonTokens(value: unknown): number {
  if (value === undefined) return 0;
  return Math.ceil(JSON.stringify(value).length / 4);
}

/** What the API counted last: the tokens of the request and reply that ended the first `messages` messages. */
export interface TokenBasis {
  tokens: number;
  messages: number;
}

/** No count yet: everything is estimated. */
export const NO_BASIS: TokenBasis = { tokens: 0, messages: 0 };

/** A reply's usage as the context it fills: all its input (cached or not) and its output. */
export function contextTokensOf(usage: Usage): number {
  return usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens + usage.output_tokens;
}

/** The basis after a reply whose message is the history's `messages`-th: none when the model reported no input (a scripted model). */
export function basisAfter(previous: TokenBasis, usage: Usage, messages: number): TokenBasis {
  return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens > 0 ? { tokens: contextTokensOf(usage), messages } : previous;
}

/** Messages as the machine holds them: an AppendLog or an array. */
export interface MessageList {
  readonly length: number;
  at(index: number): MessageParam | undefined;
}

/**
 * The estimated tokens of the next request: the basis, and the JSON of the messages after it; with no basis, of the
 * system prompt and the tools too. Reads only the messages after the basis (a turn or two).
 */
export function estimateTokens(basis: TokenBasis, messages: MessageList, prefix: { system?: unknown; tools?: unknown }): number {
  const from = basis.messages <= messages.length ? basis.messages : 0;
  let tokens = from === 0 ? jsonTokens(prefix.system) + jsonTokens(prefix.tools) : basis.tokens;
  for (let i = from; i < messages.length; i++) tokens += jsonTokens(messages.at(i));
  return tokens;
}

/** Claude Code's margin below the window: room for the summary's output (20,000) and 13,000 more. */
export const COMPACT_RESERVE = 33_000;

/**
 * The tokens past which the loop compacts before a request (none: only after a refusal): the setting's threshold
 * (a fraction of the window, or tokens), else the window less COMPACT_RESERVE, or 80 % of a window too small for it.
 */
export function compactThreshold(window: number | undefined, setting: CompactionSetting | undefined): number | undefined {
  if (window === undefined || setting === 'off') return undefined;
  const threshold = setting?.threshold;
  if (threshold !== undefined) return threshold <= 1 ? Math.floor(window * threshold) : Math.min(threshold, window);
  return window - COMPACT_RESERVE >= window / 2 ? window - COMPACT_RESERVE : Math.floor(window * 0.8);
}
