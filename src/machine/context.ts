import { AppendLog, AppendSet } from '../core/appendLog.js';
import type { RunConfig } from '../core/config.js';
import { defaultRunConfig } from '../core/config.js';
import type { MessageParam, StopReason, ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import type { ModelRequest } from '../core/model.js';
import type { ExitReason, RunError, TransitionReason } from '../core/outcome.js';
import { thinkingParam } from '../core/thinking.js';
import type { Usage } from '../core/usage.js';
import type { Continuation } from './rules.js';
import { NO_BASIS, type TokenBasis } from '../history/tokens.js';
import { zeroUsage } from '../core/usage.js';

/**
 * The loop's state. It has few top-level fields on purpose: XState copies it with `Object.assign` at every
 * `assign`, and V8 keeps an object built that way with more than about 19 properties in slow
 * (dictionary) mode, which made every copy ~8 µs and every read slower (BENCHMARKS.md, section 1).
 * test/machine/fastContext.process.test.ts checks that the machine's contexts stay fast.
 *
 * Every update makes new values: nothing in a context changes after it is made (XState's rule), so a snapshot, the
 * inspector and a recorded state hold the truth of their moment. The growing logs (`messages`, `turnUsage`,
 * `toolUseIds`) are AppendLog / AppendSet versions, which share their storage and cost an append, not a copy.
 */
export interface AgentContext {
  /** The model's whole working memory: sent in full with every call. */
  messages: AppendLog<MessageParam>;
  /** Model calls so far: 1 for the first, +1 for each call the loop goes on to. */
  turnCount: number;
  /** Why the loop went on into the current turn; `null` in the first turn and once it stops. */
  transitionReason: TransitionReason | null;

  config: RunConfig;
  /** The model the next call uses: `config.model`, or the fallback after an overloaded error. */
  model: string;
  /** `stop_reason` of the latest reply, as the API reported it. */
  stopReason: StopReason | null;
  exitReason: ExitReason | null;
  /** Summed usage of every model call of this run. */
  usage: Usage;
  /** Usage of each model call, in order. */
  turnUsage: AppendLog<Usage>;
  /** The run's cost so far, in USD (core/pricing.ts). */
  costUsd: number;
  /**
   * The seed's signal: true as soon as a complete tool_use block arrives in the stream (or is in
   * the reply). The guard that sends the loop to `executingTools` reads it, not `stop_reason`.
   */
  needsFollowUp: boolean;
  /** Every tool_use id in `messages`. */
  toolUseIds: AppendSet<string>;
  /** What the current turn has seen and started: reset when a turn begins. */
  turn: TurnState;
  /** Counters of the loop's recoveries: retries of a failed call, continuations after max_tokens. */
  recovery: RecoveryState;
  error: RunError | null;
  /** What the loop knows of the context window's use, and its compactions (./compaction.ts). */
  compaction: CompactionState;
  /** The run's randomness (retry jitter) is derived from this seed (machine/rules.ts). */
  seed: number;
}

/** What one turn has seen and started. */
export interface TurnState {
  /** Complete tool_use blocks of the latest reply. */
  toolUses: ToolUseBlock[];
  /** Ids of the tool_use blocks handed to the tool runner while this turn's reply streamed. */
  streamedToolUseIds: string[];
  /** Ids of tools of this turn that have started. */
  startedToolIds: string[];
  /** Results of this turn's tools as they arrive, by tool_use id. */
  toolResults: Record<string, ToolResultBlockParam>;
  /** What the next call needs besides tool results. */
  continuation: Continuation;
}

export interface RecoveryState {
  /** Failed attempts of the current model call. */
  retryAttempt: number;
  /** The wait before the next attempt. */
  retryDelayMs: number;
  /** Replies cut by max_tokens in a row. */
  maxTokensStreak: number;
  /** Overloaded errors of the current model in a row (the fallback takes over after OVERLOADED_BEFORE_FALLBACK). */
  overloadedStreak: number;
  /** The model the next attempt leaves for the fallback (set only for that attempt). */
  fallbackFrom?: string;
}

export interface CompactionState {
  /** What the API counted last, and for how many messages of the history (history/tokens.ts). */
  basis: TokenBasis;
  /** A compaction asked for and not done yet: after a refused request, or one that failed and is tried again. */
  pending: 'threshold' | 'prompt_too_long' | null;
  /** The history was compacted (or tried) after the last accepted reply: a refusal now ends the run (no loop). */
  since: boolean;
  /** Boundaries in this run. */
  count: number;
  /** The window a refusal named ("prompt is too long: N tokens > W maximum"), when smaller than the one assumed. */
  learnedWindow?: number;
}

export const initialCompaction = (): CompactionState => ({ basis: NO_BASIS, pending: null, since: false, count: 0 });

/** A turn before anything has happened in it. */
export function freshTurn(): TurnState {
  return { toolUses: [], streamedToolUseIds: [], startedToolIds: [], toolResults: {}, continuation: null };
}

export interface AgentInput {
  /** The conversation so far; it must end with the user message the model is to answer. */
  messages: MessageParam[];
  /** Where a resumed run's turn count goes on from (default 1). */
  turnCount?: number;
  config: Partial<RunConfig> & Pick<RunConfig, 'model'>;
  /** Seed of the run's randomness (default 0): give each run its own for independent jitter. */
  seed?: number;
}

export function initialContext(input: AgentInput): AgentContext {
  const config: RunConfig = { ...defaultRunConfig, tools: [], ...input.config };
  const messages = AppendLog.of(input.messages);
  return {
    messages,
    turnCount: input.turnCount ?? 1,
    transitionReason: null,
    config,
    model: config.model,
    stopReason: null,
    exitReason: null,
    usage: zeroUsage(),
    turnUsage: AppendLog.of(),
    costUsd: 0,
    needsFollowUp: false,
    toolUseIds: AppendSet.of(input.messages.flatMap(toolUseIdsOf)),
    turn: freshTurn(),
    recovery: { retryAttempt: 0, retryDelayMs: 0, maxTokensStreak: 0, overloadedStreak: 0 },
    error: null,
    compaction: initialCompaction(),
    seed: input.seed ?? 0,
  };
}

function toolUseIdsOf(message: MessageParam): string[] {
  if (typeof message.content === 'string') return [];
  return message.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
}

/**
 * The request body of the next model call, derived from the state alone. Only `messages` and
 * the model settings go out: `turnCount`, `transitionReason` and the rest of the loop's
 * bookkeeping never reach the model. `messages` is the history's shared log, not a copy (`SharedLog`): building a
 * request costs the same at any history length. The model service adds the prompt-caching
 * breakpoints (`withCacheBreakpoints`) to the body it sends.
 */
export function buildRequest(context: Pick<AgentContext, 'messages' | 'config' | 'model'>): ModelRequest {
  const { config } = context;
  return {
    model: context.model,
    max_tokens: config.maxTokens,
    ...(config.system ? { system: config.system } : {}),
    ...(config.tools.length > 0 ? { tools: config.tools } : {}),
    ...(config.thinking ? { thinking: thinkingParam(config.thinking, context.model, config.maxTokens) } : {}),
    messages: context.messages.shared(),
  };
}

/** What the machine ends with (its output, `runAgent`'s `context`): its final context, the logs as plain arrays. */
export type AgentOutput = Omit<AgentContext, 'messages' | 'turnUsage' | 'toolUseIds'> & {
  messages: MessageParam[];
  turnUsage: Usage[];
  toolUseIds: Set<string>;
};

export function outputOf(context: AgentContext): AgentOutput {
  return { ...context, messages: context.messages.toArray(), turnUsage: context.turnUsage.toArray(), toolUseIds: new Set(context.toolUseIds) };
}
