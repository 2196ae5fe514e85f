import { describe, expect, it } from 'vitest';
import { costOf, priceOf } from '../../src/core/pricing.js';
import {
  canRetryAfter,
  continuationAfter,
  fallbackAfter,
  nextTransitionReason,
  overBudget,
  retryDelayMs,
  seededRandom,
} from '../../src/machine/rules.js';

describe('continuationAfter', () => {
  it('goes on after pause_turn and resets the max_tokens streak', () => {
    expect(continuationAfter('pause_turn', 2, 3)).toEqual({ continuation: 'pause_turn', streak: 0 });
  });
  it('asks to continue after a max_tokens cut while the streak is within the limit', () => {
    expect(continuationAfter('max_tokens', 0, 3)).toEqual({ continuation: 'max_tokens', streak: 1 });
    expect(continuationAfter('max_tokens', 2, 3)).toEqual({ continuation: 'max_tokens', streak: 3 });
  });
  it('stops continuing once the streak passes the limit', () => {
    expect(continuationAfter('max_tokens', 3, 3)).toEqual({ continuation: null, streak: 4 });
    expect(continuationAfter('max_tokens', 0, 0)).toEqual({ continuation: null, streak: 1 });
  });
  it('needs nothing after any other stop reason', () => {
    for (const reason of ['end_turn', 'tool_use', 'stop_sequence', 'refusal', null] as const) {
      expect(continuationAfter(reason, 2, 3)).toEqual({ continuation: null, streak: 0 });
    }
  });
});

describe('nextTransitionReason', () => {
  it('is tool_result whenever the reply had tool use, even if also cut', () => {
    expect(nextTransitionReason(true, 'max_tokens')).toBe('tool_result');
    expect(nextTransitionReason(true, null)).toBe('tool_result');
  });
  it('names the continuation otherwise', () => {
    expect(nextTransitionReason(false, 'max_tokens')).toBe('max_tokens_continuation');
    expect(nextTransitionReason(false, 'pause_turn')).toBe('pause_turn');
  });
});

describe('retryDelayMs', () => {
  const config = { retryBaseMs: 500, retryMaxMs: 32_000 };
  it('doubles per attempt, with up to a quarter of jitter taken off', () => {
    expect(retryDelayMs(1, config, undefined, 0.999999)).toBe(500);
    expect(retryDelayMs(1, config, undefined, 0)).toBe(375);
    expect(retryDelayMs(3, config, undefined, 0.999999)).toBe(2000);
  });
  it('is capped at retryMaxMs', () => {
    expect(retryDelayMs(20, config, undefined, 0.999999)).toBe(32_000);
  });
  it('takes the API’s retry-after when given, capped, never negative', () => {
    expect(retryDelayMs(1, config, 1234, 0.5)).toBe(1234);
    expect(retryDelayMs(1, config, 99_000, 0.5)).toBe(32_000);
    expect(retryDelayMs(1, config, -5, 0.5)).toBe(0);
  });
});

describe('seededRandom', () => {
  it('is the same for the same seed and place, in [0, 1)', () => {
    expect(seededRandom(42, 3, 1)).toBe(seededRandom(42, 3, 1));
    for (let i = 0; i < 1000; i++) {
      const x = seededRandom(i, i % 7, i % 3);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
  });
  it('differs between seeds, turns and attempts, and spreads over the range', () => {
    const values = new Set<number>();
    for (let seed = 0; seed < 50; seed++) for (let attempt = 1; attempt <= 4; attempt++) values.add(seededRandom(seed, 1, attempt));
    expect(values.size).toBe(200);
    const all = [...values];
    expect(all.filter((x) => x < 0.5).length).toBeGreaterThan(60);
    expect(all.filter((x) => x >= 0.5).length).toBeGreaterThan(60);
  });
});

describe('canRetryAfter', () => {
  it('retries a retryable error unless it broke mid-stream after a tool started', () => {
    expect(canRetryAfter({ retryable: true }, 0)).toBe(true);
    expect(canRetryAfter({ retryable: true, midStream: true }, 0)).toBe(true);
    expect(canRetryAfter({ retryable: true, midStream: true }, 1)).toBe(false);
    expect(canRetryAfter({ retryable: true, midStream: false }, 1)).toBe(true);
    expect(canRetryAfter({ retryable: false }, 0)).toBe(false);
  });
  it('retries a refused reply also after a (read-only) tool of it started: nothing of it is kept', () => {
    expect(canRetryAfter({ retryable: true, midStream: true, refused: true }, 2)).toBe(true);
    expect(canRetryAfter({ retryable: false, midStream: true, refused: true }, 0)).toBe(false);
  });
});

describe('fallbackAfter and overBudget', () => {
  it('switches to the fallback after 3 overloaded answers in a row (Claude Code\'s count), never to the model itself', () => {
    expect([0, 1, 2].map((streak) => fallbackAfter('opus', streak, 'sonnet'))).toEqual([undefined, undefined, undefined]);
    expect(fallbackAfter('opus', 3, 'sonnet')).toBe('sonnet');
    expect(fallbackAfter('opus', 3, undefined)).toBeUndefined();
    expect(fallbackAfter('sonnet', 5, 'sonnet')).toBeUndefined();
  });
  it('is over budget at or past the limit, never without one', () => {
    expect(overBudget(1, 1)).toBe(true);
    expect(overBudget(0.99, 1)).toBe(false);
    expect(overBudget(1e9, undefined)).toBe(false);
  });
  it('takes a cost that is not a number for a spent budget: nothing switches the budget off', () => {
    expect(overBudget(Number.NaN, 1)).toBe(true);
    expect(overBudget(Number.POSITIVE_INFINITY, 1)).toBe(true);
    expect(overBudget(0, 1)).toBe(false);
  });
});

describe('the price table', () => {
  const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000, cache_creation_input_tokens: 1_000_000, cache_read_input_tokens: 1_000_000 };
  it('prices input, output, cache writes (1.25×) and reads (0.1×) per model family', () => {
    expect(costOf(usage, 'claude-sonnet-4-5-20250929')).toBeCloseTo(3 + 15 + 3.75 + 0.3, 6);
    expect(costOf(usage, 'claude-opus-4-5')).toBeCloseTo(5 + 25 + 6.25 + 0.5, 6);
    expect(costOf(usage, 'claude-opus-4-1')).toBeCloseTo(15 + 75 + 18.75 + 1.5, 6);
    expect(costOf(usage, 'claude-haiku-4-5')).toBeCloseTo(1 + 5 + 1.25 + 0.1, 6);
    expect(costOf(usage, 'claude-3-5-haiku-latest')).toBeCloseTo(0.8 + 4 + 1 + 0.08, 6);
  });
  it('costs nothing for a model it does not know', () => {
    expect(priceOf('scripted-demo')).toBeUndefined();
    expect(costOf(usage, 'scripted-demo')).toBe(0);
  });
});
