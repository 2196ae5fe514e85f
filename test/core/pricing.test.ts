import { describe, expect, it } from 'vitest';
import { costOf, priceOf } from '../../src/core/pricing.js';

/** One million tokens of each kind: the cost is the sum of the four prices per million. */
const million = { input_tokens: 1e6, output_tokens: 1e6, cache_creation_input_tokens: 1e6, cache_read_input_tokens: 1e6 };
const only = (kind: keyof typeof million, n: number) => ({ ...{ input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, [kind]: n });

describe('the price table (Anthropic list prices, USD per million tokens)', () => {
  it.each([
    // id as the API names it, input + output + 5m cache write + cache read
    ['claude-opus-5-5', 4 + 20 + 5 + 0.2],
    ['claude-opus-5', 5 + 25 + 6.25 + 0.5],
    ['claude-opus-4-8', 5 + 25 + 6.25 + 0.5],
    ['claude-opus-4-5-20251101', 5 + 25 + 6.25 + 0.5],
    ['claude-opus-4-1-20250805', 15 + 75 + 18.75 + 1.5],
    ['claude-opus-4-20250514', 15 + 75 + 18.75 + 1.5],
    ['claude-sonnet-5-5', 2 + 10 + 2.5 + 0.1],
    ['claude-sonnet-5', 2 + 10 + 2.5 + 0.2],
    ['claude-sonnet-4-6', 3 + 15 + 3.75 + 0.3],
    ['claude-sonnet-4-5-20250929', 3 + 15 + 3.75 + 0.3],
    ['claude-sonnet-4-20250514', 3 + 15 + 3.75 + 0.3],
    ['claude-3-7-sonnet-latest', 3 + 15 + 3.75 + 0.3],
    ['claude-haiku-4-5-20251001', 1 + 5 + 1.25 + 0.1],
    ['claude-3-5-haiku-20241022', 0.8 + 4 + 1 + 0.08],
    ['claude-3-haiku-20240307', 0.25 + 1.25 + 0.3 + 0.03],
    ['claude-fable-5-1', 10 + 50 + 12.5 + 0.25],
    ['claude-fable-5-2', 8 + 40 + 10 + 0.2],
    ['claude-mythos-5', 10 + 50 + 12.5 + 1],
    // other spellings of the same models
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 3 + 15 + 3.75 + 0.3],
    ['claude-opus-4-5@20251101', 5 + 25 + 6.25 + 0.5],
    ['claude-sonnet-4-5[1m]', 3 + 15 + 3.75 + 0.3],
  ])('%s', (model, dollars) => {
    // a small usage, so that the long-prompt price of a Haiku 5.5 does not apply
    expect(costOf(only('input_tokens', 1000), model)).toBeCloseTo((priceOf(model)?.input ?? NaN) / 1000, 12);
    expect(costOf(million, model)).toBeCloseTo(dollars, 9);
  });

  it('prices each kind of token at its own rate', () => {
    expect(costOf(only('input_tokens', 2e6), 'claude-sonnet-4-5')).toBeCloseTo(6, 9);
    expect(costOf(only('output_tokens', 2e6), 'claude-sonnet-4-5')).toBeCloseTo(30, 9);
    expect(costOf(only('cache_creation_input_tokens', 2e6), 'claude-sonnet-4-5')).toBeCloseTo(7.5, 9);
    expect(costOf(only('cache_read_input_tokens', 2e6), 'claude-sonnet-4-5')).toBeCloseTo(0.6, 9);
  });

  it('prices a Haiku 5.5 request by its prompt length: over 100,000 prompt tokens, every token costs more', () => {
    const short = { input_tokens: 50_000, cache_read_input_tokens: 50_000, cache_creation_input_tokens: 0, output_tokens: 1000 };
    expect(costOf(short, 'claude-haiku-5-5')).toBeCloseTo((50_000 * 0.1 + 50_000 * 0.01 + 1000 * 0.5) / 1e6, 12);
    const long = { ...short, cache_creation_input_tokens: 1 };
    expect(costOf(long, 'claude-haiku-5-5')).toBeCloseTo((50_000 * 0.5 + 50_000 * 0.05 + 0.625 + 1000 * 2.5) / 1e6, 12);
  });

  it("prices a version it does not list yet as its family's newest, and an unknown model at nothing", () => {
    expect(priceOf('claude-sonnet-7')).toEqual(priceOf('claude-sonnet-5-5'));
    expect(priceOf('scripted-demo')).toBeUndefined();
    expect(costOf(million, 'claude-test')).toBe(0);
  });
});
