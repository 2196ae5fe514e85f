/** Picking set options out of runAgent's (./runAgent.ts). */
import type { RunConfig } from '../core/config.js';

const CONFIG_KEYS = ['maxTokens', 'maxTurns', 'maxRetries', 'retryBaseMs', 'retryMaxMs', 'maxTokensContinuations', 'fallbackModel', 'maxBudgetUsd', 'thinking', 'contextWindow', 'compaction'] as const;

/** The loop settings among the options (the rest is what is plugged in). */
export function configOf(options: Partial<Omit<RunConfig, 'tools' | 'model'>>): Partial<RunConfig> {
  return pick(options, ...CONFIG_KEYS);
}

/** The given keys of `value` that are set. */
export function pick<T extends object, K extends keyof T>(value: T, ...keys: K[]): { [P in K]?: Exclude<T[P], undefined> } {
  const out: { [P in K]?: Exclude<T[P], undefined> } = {};
  for (const key of keys) if (value[key] !== undefined) out[key] = value[key] as Exclude<T[K], undefined>;
  return out;
}
