/**
 * The journalled actors against an in-memory journal that replays as Restate's does
 * (./memoryJournal.ts): a crash mid-action, a replay on the same worker or another, a finished run
 * replayed from its journal alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ModelCall } from '../../src/core/model.js';
import { ModelError } from '../../src/core/model.js';
import type { Tool } from '../../src/core/tool.js';
import { INTERRUPTED_BY_WORKER } from '../../src/durable/journal.js';
import { reply, respondingModel, scriptedModel } from '../../src/scripted/model.js';
import { zeroUsage } from '../../src/core/usage.js';
import { createBashTool } from '../../src/tools/bash/bashTool.js';
import { loadedShellParser, loadShellParser } from '../../src/tools/bash/judge/shell/load.js';
import { crashed, invocation, run, toolResults, type Entry } from './memoryJournal.js';

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

describe('journalled actors, replayed', () => {
  it('a tool that may have effects, cut off while it ran, is answered interrupted and not run again', async () => {
    const tool = counted('act', false);
    const model = script();
    const run1 = invocation();
    // Entries: model call, tool start, tool result: the worker dies while the tool runs (entry 2).
    const first = run1.attempt([], { crashAt: 2 });
    const recorded = await crashed(first, () => run(first, model.call, [tool.tool]));
    expect(recorded).toEqual([
      { name: 'model call (turn 1)', value: expect.objectContaining({ done: true }) },
      { name: 'tool act starts', value: { readOnly: false } },
    ]);

    const result = await run(run1.attempt(recorded, { worker: 'worker-2' }), model.call, [tool.tool]);
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
    const run1 = invocation();
    const first = run1.attempt([], { crashAt: 2 });
    const recorded = await crashed(first, () => run(first, model.call, [tool.tool]));
    const result = await run(run1.attempt(recorded, { worker: 'worker-2' }), model.call, [tool.tool]);
    expect(tool.runs).toBe(2);
    expect(result.context.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'act ran' }] });
  });

  it('a finished run replays from its journal alone, the same way', async () => {
    const tool = counted('act', false);
    const run1 = invocation();
    const first = run1.attempt([]);
    const original = await run(first, script().call, [tool.tool]);
    const never: ModelCall = async () => {
      throw new Error('the model must not be asked again');
    };
    const replayed = await run(run1.attempt(first.entries, { worker: 'worker-2' }), never, [{ ...tool.tool, run: async () => ({ content: 'again', isError: false }) }]);
    expect(replayed.context.messages).toEqual(original.context.messages);
    expect(tool.runs).toBe(1);
  });

  it('a failed model call is journalled: the replay fails the same way without asking again', async () => {
    let calls = 0;
    const failing: ModelCall = async () => {
      calls += 1;
      throw new ModelError('invalid_request', 'bad request', { status: 400, apiType: 'invalid_request_error' });
    };
    const run1 = invocation();
    const first = run1.attempt([]);
    const original = await run(first, failing, []);
    expect(original.context.exitReason).toBe('model_error');
    const replayed = await run(run1.attempt(first.entries, { worker: 'worker-2' }), failing, []);
    expect(calls).toBe(1);
    expect(replayed.context.error).toEqual(original.context.error);
    expect(replayed.context.error).toMatchObject({ kind: 'invalid_request', status: 400, apiType: 'invalid_request_error' });
  });
});

describe('replays meet the same steps', () => {
  /** The model of the parser tests: one bash command a turn, then an answer. */
  const commands = ['grep -c "X" f.txt', 'grep "X" f.txt | wc -l', 'cat f.txt'];
  const bashScript = () =>
    respondingModel((request) => {
      const turn = request.messages.filter((m) => m.role === 'assistant').length;
      const command = commands[turn];
      return command === undefined ? reply.text('done') : reply.toolUse([{ id: `toolu_${turn + 1}`, name: 'bash', input: { command } }]);
    });
  /** The model call of turn 4 is entry 9: model, start, result for each of three turns. */
  const LAST_MODEL_CALL = 9;

  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentloop-journal-'));
    writeFileSync(join(dir, 'f.txt'), 'X\nY\nX\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A bash tool of a fresh module graph: its shell parser has not loaded. */
  async function coldBash() {
    vi.resetModules();
    const [{ createBashTool }, { loadedShellParser }] = await Promise.all([
      import('../../src/tools/bash/bashTool.js'),
      import('../../src/tools/bash/judge/shell/load.js'),
    ]);
    expect(loadedShellParser()).toBeNull();
    return { tool: createBashTool({ cwd: dir }), parserLoaded: () => loadedShellParser() !== null };
  }
  async function warmBash() {
    await loadShellParser();
    return { tool: createBashTool({ cwd: dir }), parserLoaded: () => loadedShellParser() !== null };
  }
  /** The journalled read-only decisions, in order. */
  const decisions = (entries: Entry[]) => entries.filter((e) => e.name === 'tool bash starts').map((e) => (e.value as { readOnly: boolean }).readOnly);

  it.each([
    ['written before the parser loaded, replayed after', coldBash, warmBash],
    ['written after the parser loaded, replayed before', warmBash, coldBash],
  ])('journals %s', async (_, writer, replayer) => {
    const model = bashScript();
    const run1 = invocation();
    const first = run1.attempt([], { crashAt: LAST_MODEL_CALL });
    const written = await writer();
    // The first decision of a cold tool is taken before its parser has loaded.
    const coldFirst = !written.parserLoaded();
    const recorded = await crashed(first, () => run(first, model.call, [written.tool], { cwd: dir }));
    expect(recorded.filter((e) => e.name === 'tool bash').map((e) => (e.value as { value: { content: string } }).value.content.trim())).toEqual([
      '2',
      '2',
      'X\nY\nX',
    ]);
    if (coldFirst) expect(decisions(recorded)[0], 'a quoted command is not judged before the parser loads').toBe(false);
    else expect(decisions(recorded)).toEqual([true, true, true]);

    const reader = await replayer();
    const second = run1.attempt(recorded, { worker: 'worker-2' });
    const result = await run(second, model.call, [reader.tool], { cwd: dir });
    expect(second.mismatches).toEqual([]);
    expect(result.context.exitReason).toBe('completed');
    expect(toolResults(result).map((r) => String(r.content).trim())).toEqual(['2', '2', 'X\nY\nX']);
    expect(decisions(second.entries)).toEqual(decisions(recorded));
    // The replay asked the tool nothing: a cold replayer's parser is still not loaded.
    if (replayer === coldBash) expect(reader.parserLoaded()).toBe(false);
  });

  it('the waits before retries are journalled: a replay does not wait them again', async () => {
    let calls = 0;
    const limited: ModelCall = async () => {
      calls += 1;
      if (calls <= 2) throw new ModelError('rate_limit', 'slow down', { status: 429, retryAfterMs: 20_000 });
      return { content: [{ type: 'text', text: 'at last', citations: null }], stopReason: 'end_turn', usage: zeroUsage(), droppedIncompleteBlock: false };
    };
    const run1 = invocation();
    const first = run1.attempt([]);
    const original = await run(first, limited, [], { maxRetries: 3 });
    expect(original.text).toBe('at last');
    expect(first.entries.map((e) => e.name)).toEqual(['model call (turn 1)', 'sleep 20000 ms', 'model call (turn 1)', 'sleep 20000 ms', 'model call (turn 1)']);
    // The replay (time is not simulated for it: a wait would be a real one) meets the same steps and waits for none.
    const replay = run1.attempt(first.entries, { worker: 'worker-2' });
    const replayed = await run(replay, limited, [], { maxRetries: 3 });
    expect(replayed.text).toBe('at last');
    expect(calls).toBe(3);
  }, 10_000);

  it('a long tool journals a heartbeat; on its own worker a new attempt takes it up, on another it is interrupted', async () => {
    let runs = 0;
    let finish: () => void = () => {};
    const long: Tool = {
      ...counted('act', false).tool,
      run: async () => {
        runs += 1;
        await new Promise<void>((resolve) => (finish = resolve));
        return { content: 'finished', isError: false };
      },
    };
    const model = script();
    const run1 = invocation();
    const first = run1.attempt([], { heartbeatMs: 20, crashAt: 5 });
    const recorded = await crashed(first, () => run(first, model.call, [long]));
    expect(recorded.map((e) => e.name)).toEqual(['model call (turn 1)', 'tool act starts', 'tool act', 'tool act', 'tool act']);
    expect(recorded.slice(2).map((e) => e.value)).toEqual([{ done: false }, { done: false }, { done: false }]);

    const elsewhere = await run(run1.attempt(recorded, { worker: 'worker-2', heartbeatMs: 20 }), model.call, [long]);
    expect(toolResults(elsewhere)).toEqual([expect.objectContaining({ content: INTERRUPTED_BY_WORKER, is_error: true })]);

    const here = run1.attempt(recorded, { heartbeatMs: 20 });
    const taken = run(here, model.call, [long]);
    await new Promise((r) => setTimeout(r, 60));
    finish();
    expect(toolResults(await taken)).toEqual([expect.objectContaining({ content: 'finished' })]);
    expect(runs).toBe(1);
  });
});
