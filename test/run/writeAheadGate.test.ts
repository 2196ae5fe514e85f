/**
 * Write-ahead, whatever the moment the record reaches the disk: a tool is called only once its `tool_start` is on
 * disk. The recorder here writes each `tool_start` later, behind a gate it awaits (its `recorded` hook says when),
 * and the gates open at moments a fault matrix picks: at once, after some microtasks, after a turn of the event loop,
 * or only once the next tool's start was announced (a later tool's record first). Each tool looks at the "disk" in
 * the first synchronous moment of its call. No timer: every gate opens on an event.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import type { Tool } from '../../src/core/tool.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import type { SessionRecorder } from '../../src/transcript/recorder.js';

/** When a tool's `tool_start` reaches the disk, counted from the moment the recorder was given it. */
type Moment = { at: 'once' } | { at: 'microtasks'; count: number } | { at: 'nextTurn' } | { at: 'nextStart' };

interface Call {
  safe: boolean;
  moment: Moment;
}

const moment: fc.Arbitrary<Moment> = fc.oneof(
  fc.constant({ at: 'once' as const }),
  fc.integer({ min: 1, max: 6 }).map((count) => ({ at: 'microtasks' as const, count })),
  fc.constant({ at: 'nextTurn' as const }),
  fc.constant({ at: 'nextStart' as const }),
);

/** 'nextStart' only where the next tool can start while this one waits (both concurrency-safe); else the next turn. */
function feasible(calls: Call[]): Call[] {
  return calls.map((call, i) => (call.moment.at === 'nextStart' && !(call.safe && calls[i + 1]?.safe) ? { ...call, moment: { at: 'nextTurn' } } : call));
}

/** A recorder whose `tool_start` records reach `disk` when their gate opens; the rest is written at once (nowhere). */
function gatedRecorder(calls: Call[]) {
  const disk = new Set<string>();
  const written = new Map<string, Promise<void>>();
  const announced = new Map<string, () => void>();
  const announcedPromise = new Map<string, Promise<void>>();
  const whenAnnounced = (id: string) => {
    if (!announcedPromise.has(id)) announcedPromise.set(id, new Promise<void>((resolve) => announced.set(id, resolve)));
    return announcedPromise.get(id) as Promise<void>;
  };
  const gate = (index: number): Promise<void> => {
    const m = (calls[index] as Call).moment;
    if (m.at === 'microtasks') return Array.from({ length: m.count }).reduce<Promise<void>>((p) => p.then(() => undefined), Promise.resolve());
    if (m.at === 'nextTurn') return new Promise((resolve) => setImmediate(resolve));
    return whenAnnounced(`tu_${index + 1}`);
  };
  const recorder: SessionRecorder & { disk: Set<string> } = {
    id: 'gated',
    path: '(memory)',
    failure: undefined,
    disk,
    prompt: () => {},
    resumed: () => {},
    flush: () => {},
    finish: () => {},
    close: () => {},
    onEvent(event: RunEvent) {
      if (event.type !== 'tool_start') return;
      const id = event.block.id;
      const index = Number(id.slice('tu_'.length));
      whenAnnounced(id);
      announced.get(id)?.();
      if ((calls[index] as Call).moment.at === 'once') disk.add(id);
      else written.set(id, gate(index).then(() => void disk.add(id)));
    },
    recorded: (id: string) => written.get(id) ?? Promise.resolve(),
  };
  return recorder;
}

/** Runs one reply with a tool_use per call; what each tool saw on disk when it was called. */
async function run(calls: Call[]) {
  const recorder = gatedRecorder(calls);
  const seen: Record<string, boolean> = {};
  const tool = (name: string, safe: boolean): Tool => ({
    name,
    description: 'notes whether its tool_start is on disk when it is called',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    isConcurrencySafe: () => safe,
    run: (input) => {
      const { id } = input as { id: string };
      seen[id] = recorder.disk.has(id); // the first synchronous moment of the call
      return Promise.resolve({ content: 'ok', isError: false });
    },
  });
  const blocks = calls.map((call, i) => ({ id: `tu_${i}`, name: call.safe ? 'safe' : 'unsafe', input: { id: `tu_${i}` } }));
  const model = scriptedModel([reply.toolUse(blocks), reply.text('done')]);
  const result = await runAgent('go', { model: 'scripted', modelCall: model.call, tools: [tool('safe', true), tool('unsafe', false)], cwd: process.cwd(), session: recorder });
  return { result, seen };
}

describe('write-ahead with a recorder that writes later', () => {
  it('calls no tool before its tool_start is on disk, at every moment the write can end', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ safe: fc.boolean(), moment }), { minLength: 1, maxLength: 4 }), async (drawn) => {
        const calls = feasible(drawn);
        const { result, seen } = await run(calls);
        expect(result.state).toBe('done');
        expect(seen).toEqual(Object.fromEntries(calls.map((_, i) => [`tu_${i}`, true])));
      }),
      { numRuns: 60 },
    );
  });

  it('holds a tool whose record waits for a later tool start, and starts that later one first', async () => {
    const calls: Call[] = [
      { safe: true, moment: { at: 'nextStart' } },
      { safe: true, moment: { at: 'nextTurn' } },
      { safe: false, moment: { at: 'microtasks', count: 3 } },
    ];
    const { result, seen } = await run(calls);
    expect(result.state).toBe('done');
    expect(seen).toEqual({ tu_0: true, tu_1: true, tu_2: true });
  });
});
