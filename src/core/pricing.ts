/**
 * What a model call costs, from Anthropic's list prices (USD per million tokens, platform.claude.com
 * "Pricing" and the models' overview pages, checked 2026-12-03). Cache writes are priced at the 5-minute
 * rate (the `ephemeral` breakpoints agentloop sets), cache reads ("cache hits") at their own rate.
 */
import type { Usage } from './usage.js';

export interface TokenPrices {
  /** USD per million input tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
  /** USD per million tokens written to the cache (5-minute TTL). */
  cacheWrite: number;
  /** USD per million tokens read from the cache. */
  cacheRead: number;
}

export interface ModelPrice extends TokenPrices {
  /** Other prices for every token of a request whose prompt (input + cache reads + writes) is over `aboveTokens`. */
  longPrompt?: { aboveTokens: number } & TokenPrices;
}

const price = (input: number, output: number, cacheWrite: number, cacheRead: number): ModelPrice => ({ input, output, cacheWrite, cacheRead });

/** By family: [version (`major.minor`, `major` alone for x.0), price], the newest version first. */
export const PRICES: Readonly<Record<string, ReadonlyArray<readonly [string, ModelPrice]>>> = {
  fable: [
    ['5.2', price(8, 40, 10, 0.2)],
    ['5.1', price(10, 50, 12.5, 0.25)],
    ['5', price(10, 50, 12.5, 1)],
  ],
  mythos: [
    ['5.2', price(8, 40, 10, 0.2)],
    ['5.1', price(10, 50, 12.5, 0.25)],
    ['5', price(10, 50, 12.5, 1)],
  ],
  opus: [
    ['5.5', price(4, 20, 5, 0.2)],
    ...(['5', '4.8', '4.7', '4.6', '4.5'] as const).map((v) => [v, price(5, 25, 6.25, 0.5)] as const),
    ...(['4.1', '4', '3'] as const).map((v) => [v, price(15, 75, 18.75, 1.5)] as const),
  ],
  sonnet: [
    ['5.5', price(2, 10, 2.5, 0.1)],
    ['5', price(2, 10, 2.5, 0.2)],
    ...(['4.6', '4.5', '4', '3.7', '3.5', '3'] as const).map((v) => [v, price(3, 15, 3.75, 0.3)] as const),
  ],
  haiku: [
    ['5.5', { ...price(0.1, 0.5, 0.125, 0.01), longPrompt: { aboveTokens: 100_000, ...price(0.5, 2.5, 0.625, 0.05) } }],
    ['4.5', price(1, 5, 1.25, 0.1)],
    ['3.5', price(0.8, 4, 1, 0.08)],
    ['3', price(0.25, 1.25, 0.3, 0.03)],
  ],
};

/** `claude-opus-4-5-20251101`, `anthropic.claude-sonnet-4-5@…`, `claude-sonnet-4-5[1m]`; the minor never a date. */
const CURRENT_ID = /(fable|mythos|opus|sonnet|haiku)-(\d{1,2})(?:-(\d{1,2}))?(?!\d)/;
/** `claude-3-5-haiku-20241022`, `claude-3-opus-latest`. */
const LEGACY_ID = /claude-(\d)(?:-(\d))?-(opus|sonnet|haiku)/;

/** Family and version of a model id, or `undefined` for an id of no known family. */
function familyOf(id: string): { family: string; version: string } | undefined {
  const legacy = LEGACY_ID.exec(id);
  if (legacy) return { family: legacy[3] as string, version: legacy[2] ? `${legacy[1]}.${legacy[2]}` : (legacy[1] as string) };
  const current = CURRENT_ID.exec(id);
  if (!current) return undefined;
  return { family: current[1] as string, version: current[3] && current[3] !== '0' ? `${current[2]}.${current[3]}` : (current[2] as string) };
}

/**
 * The price of a model id; a version the table does not list yet costs what the newest one of its family does;
 * `undefined` for a model of no known family (a scripted one, say).
 */
export function priceOf(model: string): ModelPrice | undefined {
  const found = familyOf(model);
  const family = found && PRICES[found.family];
  if (!found || !family) return undefined;
  return (family.find(([version]) => version === found.version) ?? family[0])?.[1];
}

/** The cost of one model call's `usage` on `model` in USD; 0 for a model the table does not know. */
export function costOf(usage: Usage, model: string): number {
  const base = priceOf(model);
  if (!base) return 0;
  const prompt = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
  const rates: TokenPrices = base.longPrompt && prompt > base.longPrompt.aboveTokens ? base.longPrompt : base;
  const micro =
    usage.input_tokens * rates.input +
    usage.cache_creation_input_tokens * rates.cacheWrite +
    usage.cache_read_input_tokens * rates.cacheRead +
    usage.output_tokens * rates.output;
  return micro / 1_000_000;
}
