/**
 * Compaction in the machine, as pure functions of the context: whether the next request must be compacted first (the
 * `checkingContext` choice), whether a refused request may be compacted and sent again (`checkingError`), what the
 * `compacting` state hands its actor, and what the boundary changes. docs/loop.md, "Compaction".
 */
import { AppendLog } from '../core/appendLog.js';
import { CompactionBlocked } from '../core/hooks.js';
import type { CompactBoundary } from '../core/events.js';
import { knownContextWindow } from '../core/models.js';
import { thinkingParam } from '../core/thinking.js';
import type { ModelReply } from '../core/model.js';
import { addUsage } from '../core/usage.js';
import { windowFromRefusal, type CompactInput } from '../history/compact.js';
import { basisAfter, compactThreshold, estimateTokens, NO_BASIS } from '../history/tokens.js';
import type { AgentContext } from './context.js';

type ContextUpdate = Partial<AgentContext>;

type Ctx = Pick<AgentContext, 'config' | 'model' | 'messages' | 'compaction' | 'error' | 'turnCount'>;

/** The context window the loop keeps to: the one set, else the model's known one. */
export function windowOf(context: Pick<AgentContext, 'config' | 'model' | 'compaction'>): number | undefined {
  const assumed = context.config.contextWindow ?? knownContextWindow(context.model);
  const learned = context.compaction.learnedWindow;
  return learned !== undefined && (assumed === undefined || learned < assumed) ? learned : assumed;
}

/** The tokens past which a request is compacted first (none: only after a refusal). */
export function thresholdOf(context: Pick<AgentContext, 'config' | 'model' | 'compaction'>): number | undefined {
  return compactThreshold(windowOf(context), context.config.compaction);
}

/** The next request's estimated tokens. */
export function estimateOf(context: Ctx): number {
  return estimateTokens(context.compaction.basis, context.messages, { system: context.config.system, tools: context.config.tools });
}

/** Compact before the next request: one was refused as too long, or it is estimated past the threshold. */
export function needsCompaction(context: Ctx): boolean {
  if (context.compaction.pending !== null) return true;
  const threshold = thresholdOf(context);
  return threshold !== undefined && !context.compaction.since && context.messages.length > 1 && estimateOf(context) > threshold;
}

/**
 * A request refused as too long is compacted and sent again, once: refused again after a compaction, the run ends. A
 * history of the one question has nothing to compact (a summary of nothing would not shrink it): the run ends at once.
 */
export function canCompactAfterRefusal(context: Ctx): boolean {
  return context.error?.kind === 'prompt_too_long' && context.config.compaction !== 'off' && !context.compaction.since && context.messages.length > 1;
}

/** What the `compacting` state hands its actor. */
export function compactInputOf(context: Ctx): CompactInput {
  const { config } = context;
  const setting = config.compaction === 'off' ? undefined : config.compaction;
  const trigger = context.compaction.pending ?? 'threshold';
  return {
    trigger,
    messages: context.messages.toArray(),
    base: {
      model: context.model,
      max_tokens: config.maxTokens,
      ...(config.system ? { system: config.system } : {}),
      ...(config.tools.length > 0 ? { tools: config.tools } : {}),
      // As the loop's own requests: a history with signed thinking blocks goes with the same thinking setting.
      ...(config.thinking ? { thinking: thinkingParam(config.thinking, context.model, config.maxTokens) } : {}),
    },
    turnCount: context.turnCount,
    tokensBefore: estimateOf(context),
    window: windowOf(context),
    threshold: thresholdOf(context),
    strategy: setting?.strategy ?? 'auto',
  };
}

/** A refused request: compact before sending it again; the window it names is the one kept to from now on. */
export function refusedUpdate(context: Pick<AgentContext, 'compaction' | 'error'>): ContextUpdate {
  const named = windowFromRefusal(context.error?.message);
  const learned = context.compaction.learnedWindow;
  const learnedWindow = named !== undefined && (learned === undefined || named < learned) ? named : learned;
  return { compaction: { ...context.compaction, pending: 'prompt_too_long', ...(learnedWindow !== undefined ? { learnedWindow } : {}) } };
}

/** The compaction call failed: a refusal now ends the run; a retry compacts again (`pending`). */
export function compactionFailedUpdate(context: Pick<AgentContext, 'compaction'>): ContextUpdate {
  return { compaction: { ...context.compaction, since: true, pending: context.compaction.pending ?? 'threshold' } };
}

/** Whether the compaction failed because a PreCompact hook blocked it. */
export const isCompactionBlocked = (error: unknown): boolean => error instanceof CompactionBlocked;

/** A compaction a PreCompact hook blocked: the request goes as it is, and a refusal of it ends the run (no second try). */
export function compactionBlockedUpdate(context: Pick<AgentContext, 'compaction'>): ContextUpdate {
  return { compaction: { ...context.compaction, since: true, pending: null } };
}

/** The boundary: the history from it on is what is sent; the summary call's usage and cost count in the run's. */
export function compactedUpdate(context: Pick<AgentContext, 'compaction' | 'usage' | 'costUsd'>, boundary: CompactBoundary): ContextUpdate {
  return {
    messages: AppendLog.of(boundary.messages),
    compaction: { ...context.compaction, basis: NO_BASIS, pending: null, since: true, count: context.compaction.count + 1 },
    usage: boundary.usage ? addUsage(context.usage, boundary.usage) : context.usage,
    costUsd: context.costUsd + (boundary.costUsd ?? 0),
    error: null,
  };
}

/**
 * A reply was accepted (and is in `messages`): what the API counted is the new basis, and a refusal may be compacted
 * again. A model that counts nothing (a scripted one) gets the estimate as its basis, so each turn estimates only what
 * it added: the estimate stays linear in a long run. With no threshold the loop estimates nothing.
 */
export function measuredUpdate(context: Ctx, reply: ModelReply): ContextUpdate {
  const counted = basisAfter(context.compaction.basis, reply.usage, context.messages.length);
  const estimated = counted === context.compaction.basis && thresholdOf(context) !== undefined;
  const basis = estimated ? { tokens: estimateOf(context), messages: context.messages.length } : counted;
  return { compaction: { ...context.compaction, basis, since: false } };
}
