import type { ModelError } from '../model/types.js';
import type {
  MessageParam,
  ModelRequest,
  StopReason,
  ToolResultBlockParam,
  ToolUseBlock,
  Usage,
} from '../model/types.js';
import { zeroUsage } from '../model/types.js';
import type { ToolDefinition } from '../tools/types.js';

/** Why the loop goes on after a state: `null` when it stops. */
export type TransitionReason = 'tool_result' | 'max_tokens_continuation' | 'pause_turn' | 'retry';

/** How a run ended. */
export type ExitReason =
  | 'completed'
  | 'max_turns'
  | 'max_tokens'
  | 'refusal'
  | 'prompt_too_long'
  | 'model_error'
  | 'tool_runner_error'
  | 'aborted';

/** Settings of a run: the request's model settings and the loop's limits. */
export interface RunConfig {
  /** Model id sent in every request. */
  model: string;
  /** The request's `max_tokens`. */
  maxTokens: number;
  /** System prompt; omitted from the request when empty. */
  system?: string;
  /** Tool definitions sent with every request. */
  tools: ToolDefinition[];
  /** Stop after this many model calls (retries not counted). */
  maxTurns: number;
  /** Retries of a failed model call before the run fails. */
  maxRetries: number;
  /** First retry wait; doubles each attempt, with jitter. */
  retryBaseMs: number;
  /** Longest wait between retries (a longer `retry-after` is capped to this). */
  retryMaxMs: number;
  /** Continuations asked for in a row after replies cut by max_tokens. */
  maxTokensContinuations: number;
}

export const defaultRunConfig: Omit<RunConfig, 'model' | 'tools'> = {
  maxTokens: 8000,
  maxTurns: 50,
  maxRetries: 4,
  retryBaseMs: 500,
  retryMaxMs: 32_000,
  maxTokensContinuations: 3,
};

/** The error that ended or is delaying a run, as plain data. */
export interface RunError {
  kind: string;
  message: string;
  status?: number;
  apiType?: string;
  /** Whether waiting and calling again may fix it. */
  retryable: boolean;
}

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

export function toRunError(error: unknown, retryable = false): RunError {
  if (isModelError(error)) {
    return {
      kind: error.kind,
      message: error.message,
      retryable,
      ...(error.details.status !== undefined ? { status: error.details.status } : {}),
      ...(error.details.apiType !== undefined ? { apiType: error.details.apiType } : {}),
    };
  }
  return { kind: 'unknown', message: error instanceof Error ? error.message : String(error), retryable };
}

export function isModelError(error: unknown): error is ModelError {
  return error instanceof Error && error.name === 'ModelError' && 'kind' in error && 'details' in error;
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
