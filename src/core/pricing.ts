/**
 * What a model call costs, from a price table (USD per million tokens, the API's list prices).
 * Cache writes (5-minute TTL) cost 1.25 × the input price, cache reads 0.1 ×.
 */
import type { Usage } from './usage.js';

export interface ModelPrice {
  /** USD per million input tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
}

/** Most specific first: the first pattern that matches a model id gives its price. */
export const PRICES: ReadonlyArray<readonly [RegExp, ModelPrice]> = [
  [/opus-4-(?:[5-9]|\d\d)/, { input: 5, output: 25 }],
  [/opus/, { input: 15, output: 75 }],
  [/sonnet/, { input: 3, output: 15 }],
  [/haiku-4/, { input: 1, output: 5 }],
  [/3-5-haiku|haiku-3-5/, { input: 0.8, output: 4 }],
  [/haiku/, { input: 0.25, output: 1.25 }],
];

/** The price of a model id, or `undefined` for a model the table does not know. */
export function priceOf(model: string): ModelPrice | undefined {
  return PRICES.find(([pattern]) => pattern.test(model))?.[1];
}

/** The cost of `usage` on `model` in USD; 0 for a model the table does not know. */
export function costOf(usage: Usage, model: string): number {
  const price = priceOf(model);
  if (!price) return 0;
  const tokens =
    usage.input_tokens * price.input +
    usage.cache_creation_input_tokens * price.input * 1.25 +
    usage.cache_read_input_tokens * price.input * 0.1 +
    usage.output_tokens * price.output;
  return tokens / 1_000_000;
}
