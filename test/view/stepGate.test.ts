/**
 * Stepping a run (`--step`): the real machine and actors with a `Stepper` gate. The run rests
 * before each effect until released, and what it shows it is about to do is what then happens
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
import { waitFor } from '../session/helpers.js';

const twoTools = () =>
  scriptedModel([
    reply.toolUse([
      { id: 't1', name: 'echo', input: { text: 'one' } },
      { id: 't2', name: 'echo', input: { text: 'two' } },
    ]),
    reply.text('done'),
  ]);

describe('a stepped run', () => {
  it('waits before the request, each tool and the next request; each waiting effect is the event that then happens', async () => {
    const stepper = new Stepper();
    const events: RunEvent[] = [];
    const run = runAgent('go', { model: 'm', modelCall: twoTools().call, tools: [echoTool()], gate: stepper, onEvent: (e) => events.push(e) });
    const waited: Effect[] = [];
    const kinds = (type: string) => events.filter((e) => e.type === type).length;
    for (const expected of [
      { type: 'request', requests: 0, starts: 0 },
      { type: 'tool_start', requests: 1, starts: 0 },
      { type: 'tool_start', requests: 1, starts: 1 },
      { type: 'request', requests: 1, starts: 2 },
    ]) {
      const effect = await waitFor('the run to wait', () => stepper.current.waiting ?? undefined);
      // Nothing of it has happened yet while it waits.
      expect([effect.type, kinds('request'), kinds('tool_start')]).toEqual([expected.type, expected.requests, expected.starts]);
      waited.push(effect);
      expect(stepper.next()).toBe(true);
    }
    const result = await run;
    expect(result.context.exitReason).toBe('completed');
    // What was shown as about to happen is what happened.
    const happened = events.filter((e) => e.type === 'request' || e.type === 'tool_start');
    expect(waited.map((e) => (e.type === 'request' ? ['request', e.turnCount, e.messageCount] : ['tool_start', e.block.id]))).toEqual(
      happened.map((e) => (e.type === 'request' ? ['request', e.turnCount, e.messageCount] : e.type === 'tool_start' ? ['tool_start', e.block.id] : [])),
    );
    expect(stepper.current).toEqual({ waiting: null, released: 4, mode: 'step' });
  });

  it('an abort while parked ends the run in aborted with a valid history; runToEnd lets every later effect go', async () => {
    const stepper = new Stepper();
    const controller = new AbortController();
    const run = runAgent('go', { model: 'm', modelCall: twoTools().call, tools: [echoTool()], gate: stepper, signal: controller.signal });
    await waitFor('the request', () => stepper.current.waiting?.type === 'request');
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
    expect(free.current).toEqual({ waiting: null, released: 4, mode: 'run' });
  });
});
