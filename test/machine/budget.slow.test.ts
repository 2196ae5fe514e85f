/**
 * The budget can never be switched off by a server (issue 24, failure 8): whatever token counts a model call reports
 * (negative, fractional, NaN, Infinity, 1e295, not numbers), the run's cost stays a finite, non-negative sum of the
 * counts that are real, a reply with any other count is refused (never appended, never counted), and the run stops at
 * `max_budget` as soon as the real cost reaches the budget.
 */
import fc from 'fast-check';
import { createActor, toPromise } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { MachineEvent } from '../../src/core/events.js';
import type { ModelCall } from '../../src/core/model.js';
import { costOf } from '../../src/core/pricing.js';
import { toolDefinition, type Tool } from '../../src/core/tool.js';
import { MAX_TOKENS_PER_CALL, type Usage } from '../../src/core/usage.js';
import { historyProblems } from '../../src/history/validate.js';
import { createAgentMachine } from '../../src/run/actors.js';

const MODEL = 'claude-sonnet-4-5';
const real = fc.integer({ min: 0, max: 2_000_000 });
const bad = fc.constantFrom<unknown>(-1, -6_000_000_000, 2.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e295, MAX_TOKENS_PER_CALL + 1, '12', null);
const count = fc.oneof({ weight: 4, arbitrary: real }, { weight: 1, arbitrary: bad });
const usage = fc.record({ input_tokens: count, output_tokens: count, cache_creation_input_tokens: count, cache_read_input_tokens: count });

const isReal = (u: Record<string, unknown>) => Object.values(u).every((v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_TOKENS_PER_CALL);

const noop: Tool = { name: 'noop', description: 'does nothing', inputSchema: { type: 'object' }, run: async () => ({ content: 'ok', isError: false }) };

describe('the budget', () => {
  it('stops the run once the real cost reaches it, whatever counts the server sends (500 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(usage, { minLength: 1, maxLength: 12 }), fc.double({ min: 0.01, max: 20, noNaN: true }), async (usages, budget) => {
        // After the scripted counts, replies that cost nothing, until max_turns.
        const usageOf = (i: number): Record<string, unknown> => usages[i] ?? { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
        let call = 0;
        const model: ModelCall = async () => {
          const u = usageOf(call);
          const id = `t${call++}`;
          return { content: [{ type: 'tool_use', id, name: 'noop', input: {} }], stopReason: 'tool_use', usage: u as unknown as Usage, droppedIncompleteBlock: false };
        };
        const machine = createAgentMachine({ model, tools: [noop], cwd: '.' });
        const actor = createActor(machine, {
          input: {
            messages: [{ role: 'user', content: 'go' }],
            // (Counts near a window would compact the history first: not the subject here.)
            config: { model: MODEL, tools: [toolDefinition(noop)], maxTurns: 40, maxRetries: 40, retryBaseMs: 0, retryMaxMs: 0, maxBudgetUsd: budget, compaction: 'off' },
          },
        });
        const events: MachineEvent[] = [];
        actor.on('*', (e) => events.push(e));
        actor.start();
        const final = await toPromise(actor);

        // What the machine should have counted: the replies with real counts, until the budget was reached.
        let expected = 0;
        let counted = 0;
        for (let i = 0; i < call; i++) {
          const u = usageOf(i);
          if (!isReal(u) || expected >= budget) continue;
          expected += costOf(u as unknown as Usage, MODEL);
          counted += 1;
        }
        expect(Number.isFinite(final.costUsd) && final.costUsd >= 0).toBe(true);
        expect(final.costUsd).toBeCloseTo(expected, 9);
        expect(events.filter((e) => e.type === 'reply')).toHaveLength(counted);
        expect(events.filter((e) => e.type === 'reply_refused')).toHaveLength(call - counted);
        if (expected >= budget) expect(final.exitReason).toBe('max_budget');
        else expect(final.exitReason).not.toBe('max_budget');
        expect(historyProblems(final.messages)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  }, 120_000);
});
