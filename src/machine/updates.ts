/**
 * What each of the machine's record actions changes in the context, as pure functions of the context and the
 * action's params: each returns new values and changes nothing it is given. The growing logs (`messages`,
 * `turnUsage`, `toolUseIds`) are AppendLog / AppendSet versions, so a turn costs the same at 10,000 turns as at 10
 * (copying arrays every turn made long runs quadratic, see BENCHMARKS.md).
 */
import { appendTo, completeResults, toolUsesOf } from '../history/messages.js';
import { replyProblems } from '../history/validate.js';
import type { ModelReply } from '../core/model.js';
import { ModelError } from '../core/model.js';
import { costOf } from '../core/pricing.js';
import { CONTINUE_AFTER_MAX_TOKENS } from '../core/prompts.js';
import { isModelError, toRunError } from '../core/outcome.js';
import { addUsage, usageProblems } from '../core/usage.js';
import type { ToolUseBlock } from '../core/messages.js';
import type { AgentContext, TurnState } from './context.js';
import { measuredUpdate } from './compaction.js';
import { canRetryAfter, continuationAfter, fallbackAfter, retryDelayMs, seededRandom } from './rules.js';

export type ContextUpdate = Partial<AgentContext>;

/** Why `reply` must not join the history, or be counted (empty: it may). */
export function problemsOfReply(context: AgentContext, reply: ModelReply): string[] {
  return [...replyProblems(reply.content, context.toolUseIds), ...usageProblems(reply.usage)];
}

/** The reply joins the history as the next assistant message: the model's memory of what it said and asked for. */
export function replyMessageUpdate(context: AgentContext, reply: ModelReply): ContextUpdate {
  return { messages: appendTo(context.messages, 'assistant', reply.content) };
}

/** The turn's outcome, read from the reply (which `replyMessageUpdate` writes into the history). */
export function replyUpdate(context: AgentContext, reply: ModelReply): ContextUpdate {
  const toolUses = toolUsesOf(reply.content);
  const { continuation, streak } = continuationAfter(reply.stopReason, context.recovery.maxTokensStreak, context.config.maxTokensContinuations);
  return {
    toolUseIds: toolUses.reduce((ids, use) => ids.add(use.id), context.toolUseIds),
    turnUsage: context.turnUsage.append(reply.usage),
    stopReason: reply.stopReason,
    usage: addUsage(context.usage, reply.usage),
    costUsd: context.costUsd + costOf(reply.usage, reply.model ?? context.model),
    turn: { ...context.turn, toolUses, continuation },
    needsFollowUp: context.needsFollowUp || toolUses.length > 0,
    recovery: { retryAttempt: 0, retryDelayMs: context.recovery.retryDelayMs, maxTokensStreak: streak, overloadedStreak: 0 },
    error: null,
    ...measuredUpdate(context, reply),
  };
}

/** A reply that would make the history invalid, as the error it is: like a malformed stream. */
export function invalidReplyError(problems: readonly string[]): ModelError {
  return new ModelError('invalid_reply', `the reply would make the message history invalid: ${problems.join('; ')}`, {
    midStream: true,
  });
}

/** A failed model call: whether and when to try again, and with which model. */
export function errorUpdate(context: AgentContext, error: unknown): ContextUpdate {
  const attempt = context.recovery.retryAttempt + 1;
  const modelError = isModelError(error) ? error : undefined;
  const retryable =
    modelError !== undefined &&
    canRetryAfter(
      { retryable: modelError.retryable, midStream: modelError.details.midStream === true, refused: modelError.kind === 'invalid_reply' },
      context.turn.startedToolIds.length,
    );
  const random = seededRandom(context.seed, context.turnCount, attempt);
  const overloadedStreak = modelError?.kind === 'overloaded' ? context.recovery.overloadedStreak + 1 : 0;
  const fallback = retryable ? fallbackAfter(context.model, overloadedStreak, context.config.fallbackModel) : undefined;
  // The switch is tried at once, and the fallback's failures are counted afresh (as Claude Code does).
  if (fallback !== undefined) {
    const recovery = { ...context.recovery, retryAttempt: 0, retryDelayMs: 0, overloadedStreak: 0, fallbackFrom: context.model };
    return { error: toRunError(error, retryable), recovery, model: fallback };
  }
  const { fallbackFrom: _left, ...recovery } = context.recovery;
  return {
    error: toRunError(error, retryable),
    recovery: {
      ...recovery,
      retryAttempt: attempt,
      retryDelayMs: retryable ? retryDelayMs(attempt, context.config, modelError?.details.retryAfterMs, random) : 0,
      overloadedStreak,
    },
    model: context.model,
  };
}

/** The turn's tool results (and the request to go on after a max_tokens cut) as one user message. */
export function resultsUpdate(context: AgentContext, missingReason: string): ContextUpdate {
  return {
    messages: appendTo(context.messages, 'user', [
      ...completeResults(context.turn.toolUses, context.turn.toolResults, missingReason),
      ...(context.turn.continuation === 'max_tokens' ? [{ type: 'text' as const, text: CONTINUE_AFTER_MAX_TOKENS }] : []),
    ]),
  };
}

/** Answers every tool_use of the latest reply that has no result yet, so the history stays valid. */
export function openToolUsesUpdate(context: AgentContext, reason: string): ContextUpdate {
  const { toolUses, toolResults } = context.turn;
  if (toolUses.length === 0 || context.messages.at(-1)?.role !== 'assistant') return {};
  return { messages: appendTo(context.messages, 'user', completeResults(toolUses, toolResults, reason)) };
}

/**
 * The tool a runner starts at once when FINISH gives it the reply's tool_uses, if the machine can tell which: the
 * first tool_use of the reply not started yet, when none of the turn's started tools still runs. Such a tool starts
 * whatever it is (a concurrency-safe one has room, an unsafe one runs alone: tools/executor.ts). When a started tool
 * still runs, what starts next depends on which tools are concurrency-safe, which only the runner knows.
 */
export function startedAtFinish(turn: TurnState): ToolUseBlock | undefined {
  if (turn.startedToolIds.some((id) => turn.toolResults[id] === undefined)) return undefined;
  return turn.toolUses.find((use) => !turn.startedToolIds.includes(use.id));
}
