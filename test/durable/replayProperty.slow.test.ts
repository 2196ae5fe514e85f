/**
 * Replays meet the same steps, whatever happens (issue 25, "Replays meet the same steps, always"),
 * as a property: random runs (turns of one to three tool calls that are read-only, writing, or
 * read-only only once the worker's shell parser has loaded, like a quoted `grep`; model calls
 * refused with a retry-after before they answer) are cut by one to three worker deaths at random
 * steps, each attempt on a random worker whose parser has loaded or not, against the in-memory
 * journal (./memoryJournal.ts). Whatever the cuts: no attempt meets another step than its journal
 * holds, the run ends done, no call journalled as writing runs twice, a read-only call is never
 * answered "interrupted", each result is its own call's, every request is a valid history, and the
 * finished journal replays alone (no model, no tool) to the same messages on either kind of worker.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MessageParam, ToolResultBlockParam } from '../../src/core/messages.js';
import { ModelError, type ModelCall } from '../../src/core/model.js';
import type { Tool } from '../../src/core/tool.js';
import { INTERRUPTED_BY_WORKER } from '../../src/durable/journal.js';
import { historyProblems } from '../../src/history/validate.js';
import type { RunResult } from '../../src/run/runAgent.js';
import { reply, respondingModel } from '../../src/scripted/model.js';
import { invocation, run, toolResults, type Attempt, type Entry } from './memoryJournal.js';

/** `quoted`: read-only, but judged so only by a worker whose parser has loaded (the bash tool's case). */
type Kind = 'read' | 'write' | 'quoted';

interface Turn {
  /** Model calls of this turn refused (429 with a retry-after) before one answers. */
  refusals: number;
  calls: Kind[];
}

interface Worker {
  worker: number;
  /** Whether this worker's shell parser has loaded. */
  warm: boolean;
}

interface Scenario {
  turns: Turn[];
  /** Each cut: the worker of the attempt, and how many steps past its journal it dies. */
  cuts: Array<Worker & { after: number }>;
  last: Worker;
  /** The worker that replays the finished journal alone. */
  check: Worker;
}

const worker = { worker: fc.integer({ min: 1, max: 3 }), warm: fc.boolean() };
const scenario: fc.Arbitrary<Scenario> = fc.record({
  turns: fc.array(
    fc.record({ refusals: fc.integer({ min: 0, max: 2 }), calls: fc.array(fc.constantFrom<Kind>('read', 'write', 'quoted'), { minLength: 1, maxLength: 3 }) }),
    { minLength: 1, maxLength: 4 },
  ),
  cuts: fc.array(fc.record({ ...worker, after: fc.integer({ min: 0, max: 10 }) }), { minLength: 1, maxLength: 3 }),
  last: fc.record(worker),
  check: fc.record(worker),
});

interface Call {
  kind: Kind;
  id: string;
}

/** The world outside the run, shared by its attempts: the API's refusals left, and how often each call ran. */
function world(turns: Turn[]) {
  const refusalsLeft = turns.map((t) => t.refusals).concat([0]);
  const runs = new Map<string, number>();
  const model = respondingModel((request) => {
    const turn = request.messages.filter((m) => m.role === 'assistant').length;
    if ((refusalsLeft[turn] ?? 0) > 0) {
      refusalsLeft[turn] = (refusalsLeft[turn] ?? 0) - 1;
      return { error: new ModelError('rate_limit', 'slow down', { status: 429, retryAfterMs: 20_000 }) };
    }
    const calls = turns[turn]?.calls;
    if (!calls) return reply.text('done');
    return reply.toolUse(calls.map((kind, j) => ({ id: `toolu_${turn}_${j}`, name: 'act', input: { kind, id: `toolu_${turn}_${j}` } satisfies Call })));
  });
  /** The tool as a worker has it: a quoted call is read-only only where the parser has loaded. */
  const tool = (warm: boolean): Tool => ({
    name: 'act',
    description: 'act',
    inputSchema: { type: 'object', properties: {} },
    isConcurrencySafe: (input) => (input as Call).kind === 'read' || ((input as Call).kind === 'quoted' && warm),
    run: async (input) => {
      const { id } = input as Call;
      runs.set(id, (runs.get(id) ?? 0) + 1);
      return { content: `ran ${id}`, isError: false };
    },
  });
  return { model, runs, tool };
}

/** Runs an attempt until its worker dies (the journal so far) or the run ends (its result). */
async function attemptOnce(a: Attempt, model: ModelCall, tool: Tool): Promise<{ result: RunResult } | { cut: Entry[] }> {
  const ran = run(a, model, [tool], { maxRetries: 3 }).then((result) => ({ result }));
  return Promise.race([a.crash.then(() => ({ cut: a.entries })), ran]);
}

/** What the journal decided for each call, in the order the calls ran. */
const decisions = (entries: Entry[]) => entries.filter((e) => e.name === 'tool act starts').map((e) => (e.value as { readOnly: boolean }).readOnly);

function checkRun(result: RunResult, journal: Entry[], runs: Map<string, number>, requests: ReadonlyArray<{ messages: readonly MessageParam[] }>) {
  expect(result.context.exitReason).toBe('completed');
  expect(result.text).toBe('done');
  for (const request of requests) expect(historyProblems(request.messages)).toEqual([]);
  const uses = result.context.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.flatMap((b) => (b.type === 'tool_use' ? [b] : []))));
  const results: ToolResultBlockParam[] = toolResults(result);
  const readOnly = decisions(journal);
  expect(results.map((r) => r.tool_use_id)).toEqual(uses.map((u) => u.id));
  expect(readOnly).toHaveLength(uses.length);
  uses.forEach((use, i) => {
    const ran = runs.get(use.id) ?? 0;
    const answer = results[i];
    if (readOnly[i]) {
      expect(answer?.content, `${use.id} is read-only: run again, never interrupted`).toBe(`ran ${use.id}`);
    } else {
      expect(ran, `${use.id} was journalled as writing: it runs at most once`).toBeLessThanOrEqual(1);
      expect([`ran ${use.id}`, INTERRUPTED_BY_WORKER]).toContain(answer?.content);
    }
    if (answer?.content === `ran ${use.id}`) expect(ran).toBeGreaterThanOrEqual(1);
  });
}

/** The finished journal, replayed on `on` with no model and no tool to ask: the same messages. */
async function replayAlone(attempts: ReturnType<typeof invocation>, journal: Entry[], on: Worker, tool: Tool, expected: RunResult) {
  const never: ModelCall = async () => {
    throw new Error('the model must not be asked again');
  };
  const mute: Tool = {
    ...tool,
    run: async () => {
      throw new Error('the tool must not run again');
    },
  };
  const again = attempts.attempt(journal, { worker: `checker-${on.worker}` });
  const replayed = await run(again, never, [mute], { maxRetries: 3 });
  expect(again.mismatches).toEqual([]);
  expect(replayed.context.messages).toEqual(expected.context.messages);
}

describe('replays meet the same steps, whatever happens', () => {
  it('random runs cut by worker deaths at random steps, on workers with and without the parser', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { model, runs, tool } = world(s.turns);
        const attempts = invocation();
        let journal: Entry[] = [];
        let result: RunResult | undefined;
        for (const cut of s.cuts) {
          const a = attempts.attempt(journal, { worker: `worker-${cut.worker}`, crashAt: journal.length + cut.after });
          const outcome = await attemptOnce(a, model.call, tool(cut.warm));
          expect(a.mismatches).toEqual([]);
          if ('result' in outcome) {
            result = outcome.result;
            journal = a.entries;
            break;
          }
          journal = [...outcome.cut];
        }
        if (!result) {
          const last = attempts.attempt(journal, { worker: `worker-${s.last.worker}` });
          result = await run(last, model.call, [tool(s.last.warm)], { maxRetries: 3 });
          expect(last.mismatches).toEqual([]);
          journal = last.entries;
        }
        checkRun(result, journal, runs, model.requests);
        await replayAlone(attempts, journal, s.check, tool(s.check.warm), result);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
