import type { RunConfig } from '../core/config.js';
import { defaultRunConfig } from '../core/config.js';
import type { MessageParam, StopReason, ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import type { ModelRequest } from '../core/model.js';
import type { ExitReason, RunError, TransitionReason } from '../core/run.js';
import type { Usage } from '../core/usage.js';
import { zeroUsage } from '../core/usage.js';

export interface AgentContext {
  /** The model's whole working memory: sent in full with every call. */
  messages: MessageParam[];
  /** Model calls so far: 1 for the first, +1 for each call the loop goes on to. */
  turnCount: number;
  transitionReason: TransitionReason | null;

  config: RunConfig;
  /** `stop_reason` of the latest reply, as the API reported it. */
  stopReason: StopReason | null;
  exitReason: ExitReason | null;
  /** Summed usage of every model call of this run. */
  usage: Usage;
  /** Usage of each model call, in order. */
  turnUsage: Usage[];
  /** Set as soon as a tool_use block arrives in the stream: the reply needs a follow-up. */
  needsFollowUp: boolean;
  /** Complete tool_use blocks of the latest reply. */
  toolUses: ToolUseBlock[];
  /** Ids of tools of this turn that have started. */
  startedToolIds: string[];
  /** Results of this turn's tools as they arrive, by tool_use id. */
  toolResults: Record<string, ToolResultBlockParam>;
  /** What the next call needs besides tool results. */
  continuation: 'max_tokens' | 'pause_turn' | null;
  /** Replies cut by max_tokens in a row. */
  maxTokensStreak: number;
  /** Failed attempts of the current model call. */
  retryAttempt: number;
  retryDelayMs: number;
  error: RunError | null;
}

export interface AgentInput {
  /** The conversation so far; it must end with the user message the model is to answer. */
  messages: MessageParam[];
  /** Where a resumed run's turn count goes on from (default 1). */
  turnCount?: number;
  config: Partial<RunConfig> & Pick<RunConfig, 'model'>;
}

export function initialContext(input: AgentInput): AgentContext {
  return {
    // The run's own copy: the machine appends to it in place (see agentMachine.ts).
    messages: [...input.messages],
    turnCount: input.turnCount ?? 1,
    transitionReason: null,
    config: { ...defaultRunConfig, tools: [], ...input.config },
    stopReason: null,
    exitReason: null,
    usage: zeroUsage(),
    turnUsage: [],
    needsFollowUp: false,
    toolUses: [],
    startedToolIds: [],
    toolResults: {},
    continuation: null,
    maxTokensStreak: 0,
    retryAttempt: 0,
    retryDelayMs: 0,
    error: null,
  };
}

/**
 * The request body of the next model call, derived from the state alone. Only `messages` and
 * the model settings go out: `turnCount`, `transitionReason` and the rest of the loop's
 * bookkeeping never reach the model. `messages` is the context's own log, not a copy: building a
 * request costs the same at any history length. The model service adds the prompt-caching
 * breakpoints (`withCacheBreakpoints`) to the body it sends.
 */
export function buildRequest(context: Pick<AgentContext, 'messages' | 'config'>): ModelRequest {
  const { config } = context;
  return {
    model: config.model,
    max_tokens: config.maxTokens,
    ...(config.system ? { system: config.system } : {}),
    ...(config.tools.length > 0 ? { tools: config.tools } : {}),
    messages: context.messages,
  };
}

/** Exponential backoff with jitter; a `retry-after` from the API wins when it is given. */
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
