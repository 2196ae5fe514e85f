import type { ThinkingSetting } from './thinking.js';
import type { ToolDefinition } from './tool.js';

/**
 * Settings of a run: the request's model settings and the loop's limits. Every field's default is
 * in `defaultRunConfig` (the model and the tools have none).
 */
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
  /** Model to switch to, for the rest of the run, when the model says it is overloaded. */
  fallbackModel?: string;
  /** Stop (exit reason `max_budget`) once the run's cost passes this many USD (core/pricing.ts). */
  maxBudgetUsd?: number;
  /** Extended thinking (./thinking.ts): each request's `thinking`, as the model of that request takes it. None: off. */
  thinking?: ThinkingSetting;
}

export const defaultRunConfig: Omit<RunConfig, 'model' | 'tools'> = {
  maxTokens: 8000,
  maxTurns: 50,
  maxRetries: 4,
  retryBaseMs: 500,
  retryMaxMs: 32_000,
  maxTokensContinuations: 3,
};

