/**
 * The inspector sees what was true: the machine's context never changes after a snapshot is taken, so every
 * snapshot the inspection API hands out (`@xstate.snapshot`, what the Stately inspector serialises, maybe much later)
 * holds exactly the messages of its moment: the history the machine's `message` events had written by then (the
 * transcript is written from those events). Checked for random runs: tool turns, a paused turn joined by its
 * continuation, replies cut by max_tokens, retried errors, aborts.
 */
import fc from 'fast-check';
import { createActor, toPromise, type InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/core/messages.js';
import { ModelError } from '../../src/core/model.js';
import { toolDefinition } from '../../src/core/tool.js';
import { createAgentMachine } from '../../src/run/actors.js';
import { reply, scriptedModel, type ScriptStep } from '../../src/scripted/model.js';
import { echoTool } from '../support/drive.js';

type Step = 'tools' | 'pause' | 'cut' | 'overloaded' | 'answer';

let ids = 0;
function scriptOf(steps: Step[]): ScriptStep[] {
  const script = steps.map((step): ScriptStep => {
    if (step === 'tools') return reply.toolUse([{ id: `t${++ids}`, name: 'echo', input: { text: 'a' } }, { id: `t${++ids}`, name: 'echo', input: { text: 'b' } }]);
    if (step === 'pause') return { content: [{ type: 'text', text: 'searching…' }], stop_reason: 'pause_turn' };
    if (step === 'cut') return { content: [{ type: 'text', text: 'a long answ' }], stop_reason: 'max_tokens' };
    if (step === 'overloaded') return { error: new ModelError('overloaded', 'Overloaded', { status: 529, apiType: 'overloaded_error' }) };
    return reply.text('done');
  });
  return [...script, reply.text('done')];
}

interface Seen {
  value: unknown;
  context: { messages: unknown; turnUsage: unknown };
  /** The context serialised when the snapshot was handed out. */
  then: string;
  /** The history as the `message` events had written it by then. */
  written: MessageParam[];
  replies: number;
}

async function watch(steps: Step[], abortAfterEvents?: number) {
  const model = scriptedModel(scriptOf(steps));
  const tool = echoTool();
  const machine = createAgentMachine({ model: model.call, tools: [tool], cwd: process.cwd() });
  const written: MessageParam[] = [{ role: 'user', content: 'go' }];
  let replies = 0;
  let events = 0;
  const seen: Seen[] = [];
  const actor = createActor(machine, {
    input: { messages: [...written], config: { model: 'test-model', tools: [toolDefinition(tool)], retryBaseMs: 1, maxTurns: 50 } },
    inspect: (event: InspectionEvent) => {
      if (event.type !== '@xstate.snapshot' || event.actorRef !== actor) return;
      const snapshot = event.snapshot as unknown as Omit<Seen, 'then' | 'written' | 'replies'>;
      seen.push({ ...snapshot, then: JSON.stringify(snapshot.context), written: [...written], replies });
    },
  });
  actor.on('*', (event) => {
    if (event.type === 'message') written[event.index] = event.message;
    if (event.type === 'reply') replies += 1;
    if (abortAfterEvents !== undefined && ++events === abortAfterEvents) actor.send({ type: 'ABORT' });
  });
  actor.start();
  const output = await toPromise(actor);
  return { seen, written, output };
}

function checkSnapshots(seen: Seen[]): void {
  for (const [i, snapshot] of seen.entries()) {
    const now = JSON.parse(JSON.stringify(snapshot.context)) as { messages: MessageParam[]; turnUsage: unknown[] };
    expect(JSON.stringify(snapshot.context), `snapshot ${i} (${JSON.stringify(snapshot.value)}) changed after it was taken`).toBe(snapshot.then);
    expect(now.messages, `snapshot ${i} (${JSON.stringify(snapshot.value)})`).toEqual(snapshot.written);
    expect(now.turnUsage).toHaveLength(snapshot.replies);
  }
}

const leafOf = (value: unknown): string => (typeof value === 'string' ? value : leafOf(Object.values(value as object)[0]));

describe('every inspected snapshot', () => {
  it('holds the messages of its moment: the first callingModel only the prompt, appendingResults the results just written', async () => {
    const { seen, output } = await watch(['tools', 'pause', 'tools', 'cut', 'overloaded']);
    checkSnapshots(seen);
    const values = seen.map((s) => leafOf(s.value));
    expect(values[0]).toBe('callingModel');
    expect((seen[0]?.context.messages as { length: number }).length).toBe(1);
    // The loop of the chapter, each state a snapshot of its own.
    expect(values).toContain('executingTools');
    expect(values).toContain('appendingResults');
    expect(values).toContain('waitingToRetry');
    const appending = seen.filter((s) => leafOf(s.value) === 'appendingResults');
    // After a tool turn the results are the last message (after a pause, nothing is written there).
    expect(appending.filter((s) => (s.context.messages as { at: (i: number) => MessageParam }).at(-1).role === 'user').length).toBeGreaterThan(1);
    expect(output.exitReason).toBe('completed');
  });

  it('holds the messages of its moment in any run (random replies, errors and aborts)', async () => {
    const step = fc.constantFrom<Step>('tools', 'tools', 'pause', 'cut', 'overloaded');
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 8 }), fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }), async (steps, abortAt) => {
        const { seen, written, output } = await watch(steps, abortAt);
        checkSnapshots(seen);
        expect(output.messages).toEqual(written);
      }),
      { numRuns: 60 },
    );
  });
});
