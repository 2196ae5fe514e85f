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
  /**
   * The model's context window, in tokens: default the model's known one (./models.ts). With none known (a gateway's
   * model), the loop compacts only after the API refuses a request as too long.
   */
  contextWindow?: number;
  /** When and how the loop compacts its history (docs/loop.md, "Compaction"); default `{}`: on, with the defaults. */
  compaction?: CompactionSetting;
}

/**
 * Compaction: `'off'` (a request over the window fails the run with `prompt_too_long`), or
 * - `threshold`: compact before a request estimated past it: a fraction of the window (0.8) or tokens (150000);
 *   default Claude Code's: the window less 33,000 tokens (20,000 for the summary, 13,000 of margin), or 80 % of a
 *   window too small for that;
 * - `strategy`: `auto` (default) clears old tool results first when that is enough, else summarizes; `summary`
 *   always summarizes.
 */
export type CompactionSetting = 'off' | { threshold?: number; strategy?: 'auto' | 'summary' };

export const defaultRunConfig: Omit<RunConfig, 'model' | 'tools'> = {
  maxTokens: 8000,
  maxTurns: 50,
  maxRetries: 4,
  retryBaseMs: 500,
  retryMaxMs: 32_000,
  maxTokensContinuations: 3,
};

