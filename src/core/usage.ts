/** Token counts of one model call, or summed over a run. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export const zeroUsage = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

export function addUsage(a: Usage, b: Partial<Usage> | null | undefined): Usage {
  return {
    input_tokens: a.input_tokens + (b?.input_tokens ?? 0),
    output_tokens: a.output_tokens + (b?.output_tokens ?? 0),
    cache_creation_input_tokens: a.cache_creation_input_tokens + (b?.cache_creation_input_tokens ?? 0),
    cache_read_input_tokens: a.cache_read_input_tokens + (b?.cache_read_input_tokens ?? 0),
  };
}


/**
 * The most tokens of one kind a single model call can count: 100 times the largest context window (1M tokens), so a
 * real count is always far below it and a call's cost stays a finite figure.
 */
export const MAX_TOKENS_PER_CALL = 100_000_000;

/**
 * What is wrong with a token count the server sent (`undefined` when it is a count): a count is a non-negative safe
 * integer no larger than `MAX_TOKENS_PER_CALL`. A negative, fractional, huge or non-numeric count would make the
 * run's cost negative, NaN or absurd, and so switch the budget (`maxBudgetUsd`) off.
 */
export function tokenCountProblem(name: string, value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_TOKENS_PER_CALL) return undefined;
  const shown = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  return `usage.${name} is ${shown.length > 40 ? `${shown.slice(0, 39)}…` : shown}, not a token count (an integer from 0 to ${MAX_TOKENS_PER_CALL})`;
}

/** What is wrong with a call's usage: every count of it checked by `tokenCountProblem`. */
export function usageProblems(usage: Usage): string[] {
  return (Object.keys(zeroUsage()) as Array<keyof Usage>).flatMap((key) => tokenCountProblem(key, usage[key]) ?? []);
}
