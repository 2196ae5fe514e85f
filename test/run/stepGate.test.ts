/**
 * Stepping a run (`--step`): the real machine and actors with a `Stepper` gate. The run rests
 * before each effect of the chapter's loop (request, reply, tool, append, end) until released, and what it shows it is about to do is what then happens
 * (the same request body, the same tool_use); an abort while parked ends the run with a valid
 * history; `runToEnd` lets the rest go without stops.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import { historyProblems } from '../../src/history/validate.js';
import { Stepper, type Effect } from '../../src/run/gate.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { echoTool } from '../support/drive.js';
import { waitFor } from '../support/sessions.js';

const twoTools = () =>
  scriptedModel([
    reply.toolUse([
      { id: 't1', name: 'echo', input: { text: 'one' } },
      { id: 't2', name: 'echo', input: { text: 'two' } },
    ]),
    reply.text('done'),
  ]);

describe('a stepped run', () => {
  it('waits before the request, the reply, each tool, the append, the next request, its reply and the end; each waiting effect is what then happens', async () => {
    const stepper = new Stepper();
    const events: RunEvent[] = [];
    const run = runAgent('go', { model: 'm', modelCall: twoTools().call, tools: [echoTool()], gate: stepper, onEvent: (e) => events.push(e) });
    const waited: Effect[] = [];
    const kinds = (type: string) => events.filter((e) => e.type === type).length;
    const assistants = () => events.filter((e) => e.type === 'message' && e.message.role === 'assistant').length;
    const results = () => events.filter((e) => e.type === 'message' && e.origin === 'tools').length;
    // [effect, requests sent, replies taken in (assistant messages), tools started, results appended]
    for (const expected of [
      ['request', 0, 0, 0, 0],
      ['reply', 1, 0, 0, 0],
      ['tool_start', 1, 1, 0, 0],
      ['tool_start', 1, 1, 1, 0],
      ['append', 1, 1, 2, 0],
      ['request', 1, 1, 2, 1],
      ['reply', 2, 1, 2, 1],
      ['end', 2, 2, 2, 1],
    ]) {
      const effect = await waitFor('the run to wait', () => stepper.current.waiting ?? undefined);
      // Nothing of it has happened yet while it waits.
      expect([effect.type, kinds('request'), assistants(), kinds('tool_start'), results()]).toEqual(expected);
      waited.push(effect);
      expect(stepper.next()).toBe(true);
    }
    const result = await run;
    expect(result.context.exitReason).toBe('completed');
    // What was shown as about to happen is what happened.
    const happened = events.filter((e) => e.type === 'request' || e.type === 'tool_start');
    const shown = waited.filter((e) => e.type === 'request' || e.type === 'tool_start');
    expect(shown.map((e) => (e.type === 'request' ? ['request', e.turnCount, e.messageCount] : e.type === 'tool_start' ? ['tool_start', e.block.id] : []))).toEqual(
      happened.map((e) => (e.type === 'request' ? ['request', e.turnCount, e.messageCount] : e.type === 'tool_start' ? ['tool_start', e.block.id] : [])),
    );
    // The reply shown is the reply appended, with its stop_reason; the results shown are those appended; the end's answer is the run's.
    const reply = waited[1] as Extract<Effect, { type: 'reply' }>;
    expect([reply.stopReason, reply.content.filter((b) => b.type === 'tool_use').length]).toEqual(['tool_use', 2]);
    const append = waited[4] as Extract<Effect, { type: 'append' }>;
    expect(append.results.map((r) => r.tool_use_id)).toEqual(['t1', 't2']);
    expect(result.context.messages[2]?.content).toEqual(append.results);
    expect(waited[7]).toMatchObject({ type: 'end', state: 'done', exitReason: 'completed', text: 'done' });
    expect(stepper.current).toEqual({ waiting: null, released: 8, mode: 'step', ended: false });
  });

  it('an abort while parked ends the run in aborted with a valid history; runToEnd lets every later effect go', async () => {
    const stepper = new Stepper();
    const controller = new AbortController();
    const run = runAgent('go', { model: 'm', modelCall: twoTools().call, tools: [echoTool()], gate: stepper, signal: controller.signal });
    await waitFor('the request', () => stepper.current.waiting?.type === 'request');
    stepper.next();
    await waitFor('the reply', () => stepper.current.waiting?.type === 'reply');
    stepper.next();
    await waitFor('the first tool', () => stepper.current.waiting?.type === 'tool_start');
    controller.abort();
    const aborted = await run;
    expect(aborted.context.exitReason).toBe('aborted');
    expect(historyProblems(aborted.context.messages)).toEqual([]);
    expect(stepper.current.waiting).toBeNull();

    const free = new Stepper();
    const second = runAgent('go', { model: 'm', modelCall: twoTools().call, tools: [echoTool()], gate: free });
    await waitFor('the request', () => free.current.waiting?.type === 'request');
    free.runToEnd();
    expect((await second).context.exitReason).toBe('completed');
    expect(free.current).toEqual({ waiting: null, released: 8, mode: 'run', ended: false });
  });
});
