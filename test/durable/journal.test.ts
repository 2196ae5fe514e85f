/**
 * The journalled actors against an in-memory journal that replays as Restate's does: an entry that
 * was recorded returns its value without running its action; the first entry that was not runs.
 * A crash is an attempt abandoned while an action runs (its entry is never recorded).
 */
import { describe, expect, it } from 'vitest';
import type { ModelCall } from '../../src/core/model.js';
import { ModelError } from '../../src/core/model.js';
import type { Tool } from '../../src/core/tool.js';
import { INTERRUPTED_BY_WORKER, journalledModel, journalledTools, type Journal } from '../../src/durable/journal.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';

interface Entry {
  name: string;
  value: unknown;
}

/** One attempt: replays `recorded`, then records; at entry `crashAt` it starts the action and never finishes. */
function attempt(recorded: Entry[], crashAt = Number.POSITIVE_INFINITY) {
  const entries = [...recorded];
  let index = 0;
  const started = { crashed: false };
  const journal: Journal = {
    async run<T>(name: string, action: () => Promise<T>): Promise<T> {
      const i = index++;
      const old = entries[i];
      if (old) {
        expect(old.name, `entry ${i} replays the same step`).toBe(name);
        return structuredClone(old.value) as T;
      }
      if (i >= crashAt) {
        started.crashed = true;
        void action();
        return new Promise<T>(() => {}); // the worker died here
      }
      const value = JSON.parse(JSON.stringify(await action())) as T;
      entries.push({ name, value });
      return value;
    },
  };
  return { journal, entries, started };
}

function counted(name: string, readOnly: boolean) {
  const tool = {
    runs: 0,
    tool: {
      name,
      description: name,
      inputSchema: { type: 'object' as const, properties: {} },
      isConcurrencySafe: () => readOnly,
      run: async () => {
        tool.runs += 1;
        return { content: `${name} ran`, isError: false };
      },
    } satisfies Tool,
  };
  return tool;
}

function script() {
  return scriptedModel([reply.toolUse([{ id: 'toolu_1', name: 'act', input: {} }]), (request) => reply.text(`saw ${JSON.stringify(request.messages.at(-1)?.content)}`)]);
}

const run = (journal: Journal, model: ModelCall, tools: Tool[]) => {
  const clock = { now: 0 };
  return runAgent('go', { model: 'm', modelCall: journalledModel(journal, model, clock), tools: journalledTools(journal, tools, clock), cwd: '/', seed: 1 });
};

/** Runs until the attempt crashes (its run never ends), giving what it recorded. */
async function crashed(first: ReturnType<typeof attempt>, runIt: () => Promise<unknown>): Promise<Entry[]> {
  void runIt();
  for (let i = 0; i < 200 && !first.started.crashed; i++) await new Promise((r) => setTimeout(r, 5));
  expect(first.started.crashed).toBe(true);
  await new Promise((r) => setTimeout(r, 20));
  return first.entries;
}

describe('journalled actors, replayed', () => {
  it('a tool that may have effects, cut off while it ran, is answered interrupted and not run again', async () => {
    const tool = counted('act', false);
    const model = script();
    // Entries: model call, tool start, tool result: the worker dies while the tool runs (entry 2).
    const first = attempt([], 2);
    const recorded = await crashed(first, () => run(first.journal, model.call, [tool.tool]));
    expect(recorded.map((e) => e.name)).toEqual(['model call (turn 1)', 'tool act starts']);

    const second = attempt(recorded);
    const result = await run(second.journal, model.call, [tool.tool]);
    expect(tool.runs).toBe(1);
    expect(model.requests).toHaveLength(2); // the first reply came from the journal
    expect(result.context.messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: INTERRUPTED_BY_WORKER, is_error: true }],
    });
    expect(result.context.exitReason).toBe('completed');
  });

  it('a read-only tool cut off runs again', async () => {
    const tool = counted('act', true);
    const model = script();
    const first = attempt([], 1);
    const recorded = await crashed(first, () => run(first.journal, model.call, [tool.tool]));
    const result = await run(attempt(recorded).journal, model.call, [tool.tool]);
    expect(tool.runs).toBe(2);
    expect(result.context.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'act ran' }] });
  });

  it('a finished run replays from its journal alone, the same way', async () => {
    const tool = counted('act', false);
    const first = attempt([]);
    const original = await run(first.journal, script().call, [tool.tool]);
    const never: ModelCall = async () => {
      throw new Error('the model must not be asked again');
    };
    const replayed = await run(attempt(first.entries).journal, never, [{ ...tool.tool, run: async () => ({ content: 'again', isError: false }) }]);
    expect(replayed.context.messages).toEqual(original.context.messages);
    expect(tool.runs).toBe(1);
  });

  it('a failed model call is journalled: the replay fails the same way without asking again', async () => {
    let calls = 0;
    const failing: ModelCall = async () => {
      calls += 1;
      throw new ModelError('invalid_request', 'bad request', { status: 400, apiType: 'invalid_request_error' });
    };
    const first = attempt([]);
    const original = await run(first.journal, failing, []);
    expect(original.context.exitReason).toBe('model_error');
    const replayed = await run(attempt(first.entries).journal, failing, []);
    expect(calls).toBe(1);
    expect(replayed.context.error).toEqual(original.context.error);
    expect(replayed.context.error).toMatchObject({ kind: 'invalid_request', status: 400, apiType: 'invalid_request_error' });
  });
});
