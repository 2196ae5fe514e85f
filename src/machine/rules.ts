/**
 * The loop's rules as pure functions, each with tests of its own (test/machine/rules.test.ts):
 * the machine's guards and actions call them and hold no logic of their own.
 */
import type { RunConfig } from '../core/config.js';
import type { StopReason } from '../core/messages.js';
import type { TransitionReason } from '../core/outcome.js';

/** What the next model call needs besides tool results. */
export type Continuation = 'max_tokens' | 'pause_turn' | null;

/**
 * After a reply: whether the loop asks the model to go on without tool results, and the new count
 * of replies cut by max_tokens in a row. `pause_turn` always goes on; a max_tokens cut goes on at
 * most `limit` times in a row.
 */
export function continuationAfter(
  stopReason: StopReason | null,
  streak: number,
  limit: number,
): { continuation: Continuation; streak: number } {
  if (stopReason === 'pause_turn') return { continuation: 'pause_turn', streak: 0 };
  if (stopReason !== 'max_tokens') return { continuation: null, streak: 0 };
  const cut = streak + 1;
  return { continuation: cut <= limit ? 'max_tokens' : null, streak: cut };
}

/** Why the next turn is made: tool results first, then a max_tokens continuation, else a pause. */
export function nextTransitionReason(hasToolUse: boolean, continuation: Continuation): TransitionReason {
  if (hasToolUse) return 'tool_result';
  return continuation === 'max_tokens' ? 'max_tokens_continuation' : 'pause_turn';
}

/**
 * Exponential backoff with jitter (`random` in [0, 1) takes off up to a quarter); a `retry-after`
 * from the API wins when it is given. Both are capped at `retryMaxMs`.
 */
export function retryDelayMs(
  attempt: number,
  config: Pick<RunConfig, 'retryBaseMs' | 'retryMaxMs'>,
  retryAfterMs: number | undefined,
  random: number,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), config.retryMaxMs);
  const exponential = Math.min(config.retryBaseMs * 2 ** (attempt - 1), config.retryMaxMs);
  return Math.round(exponential * (0.75 + 0.25 * random));
}

/**
 * A number in [0, 1) determined by the run's seed and the position in the run: the machine's only
 * randomness, injected as a seed, so a run is reproducible (tests) and replays the same (durable
 * runs). A 32-bit integer mix (splitmix-style), not for cryptography.
 */
export function seededRandom(seed: number, turnCount: number, attempt: number): number {
  let x = (seed ^ Math.imul(turnCount, 0x9e3779b1) ^ Math.imul(attempt, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b) >>> 0;
  x = (x ^ (x >>> 16)) >>> 0;
  return x / 2 ** 32;
}

/**
 * Whether an error is worth another attempt: retryable by kind, and no tool of the turn has started, unless the reply
 * was refused. A stream broken after a tool started fails instead, so that `--continue` keeps that tool's tool_use (the
 * model learns what ran); a refused reply keeps nothing, and only read-only tools start while a reply streams (they
 * are stopped), so asking again loses nothing.
 */
export function canRetryAfter(error: { retryable: boolean; midStream?: boolean; refused?: boolean }, toolsStarted: number): boolean {
  return error.retryable && (error.refused === true || !(error.midStream === true && toolsStarted > 0));
}

/** Overloaded answers in a row after which the fallback model takes over (Claude Code's count). */
export const OVERLOADED_BEFORE_FALLBACK = 3;

/**
 * The fallback model the next call switches to, after `overloadedStreak` overloaded answers in a row from `current`:
 * once there are OVERLOADED_BEFORE_FALLBACK of them and a fallback other than `current` is configured; else none.
 */
export function fallbackAfter(current: string, overloadedStreak: number, fallbackModel: string | undefined): string | undefined {
  return fallbackModel !== undefined && fallbackModel !== current && overloadedStreak >= OVERLOADED_BEFORE_FALLBACK ? fallbackModel : undefined;
}

/** The run has spent its budget (none set: never); a cost that is not a number counts as spent. */
export function overBudget(costUsd: number, maxBudgetUsd: number | undefined): boolean {
  return maxBudgetUsd !== undefined && !(costUsd < maxBudgetUsd);
}
