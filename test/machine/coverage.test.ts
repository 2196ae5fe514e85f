/**
 * Every transition of the machine definition is taken by one of the scenarios below. The test
 * drives the machine itself and reads what it took from the events it emits, so it passes or
 * fails the same when run alone (`-t coverage`) as in the whole suite.
 */
import { fromCallback } from 'xstate';
import type { MessageParam } from '../../src/core/messages.js';
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../src/core/model.js';
import { listTransitions } from '../../src/diagram/transitions.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { reply, scriptedModel, type ScriptedReply } from '../../src/scripted/model.js';
import { modelActor } from '../../src/run/actors.js';
import { takenTransitions } from '../support/coverage.js';
import { drive, echoTool, type DriveOptions } from '../support/drive.js';

const use = (id: string) => ({ id, name: 'echo', input: { text: id } });
const tooLong = () => ({ error: new ModelError('prompt_too_long', 'prompt is too long', { status: 400 }) });
/** An exchange before the question: a refused history needs one to be compacted (the one question is not). */
const exchange = (): MessageParam[] => [
  { role: 'user', content: 'first' },
  { role: 'assistant', content: [{ type: 'text', text: 'first answer' }] },
  { role: 'user', content: 'go' },
];
const overloaded = () => ({ error: new ModelError('overloaded', 'Overloaded', { status: 529 }) });
const cut: ScriptedReply = { content: [{ type: 'text', text: 'cut' }], stop_reason: 'max_tokens' };
const abortWhen = (ready: (state: { matches: (v: unknown) => boolean; context: { turn: { startedToolIds: string[] } } }) => boolean): DriveOptions['onStart'] =>
  (actor) => {
    const sub = actor.subscribe((s) => {
      if (!ready(s as never)) return;
      sub.unsubscribe();
      actor.send({ type: 'ABORT' });
    });
  };

function crashingRunner(): DriveOptions['machine'] {
  const model = scriptedModel([reply.toolUse([use('t1')])]);
  return agentMachine.provide({
    actors: {
      callModel: modelActor(model.call),
      runTools: fromCallback(({ receive }) => {
        receive((command) => {
          if (command.type === 'FINISH') throw new Error('runner bug');
        });
      }),
    },
  });
}

/** One small run per way through the machine. */
const scenarios: Record<string, DriveOptions> = {
  'two tools, one streamed and safe': {
    steps: [reply.toolUse([{ id: 'a', name: 'safe', input: {} }, use('b')]), reply.text('done')],
    tools: [echoTool({ name: 'safe', safe: true }), echoTool({ delayMs: 20 })],
  },
  refusal: { steps: [{ content: [{ type: 'text', text: 'No.' }], stop_reason: 'refusal' }] },
  'max_tokens until the continuations run out': { steps: [cut, cut, cut, cut] },
  // Refused, compacted, sent again: refused again ends the run.
  'prompt too long, compacted, too long again': { steps: [tooLong(), tooLong()], messages: exchange() },
  'compaction before a request past the threshold': {
    steps: [reply.text('ok')],
    messages: [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'echo', input: { text: 'x'.repeat(9000) } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'y'.repeat(9000) }] },
    ],
    tools: [echoTool()],
    config: { contextWindow: 4000 },
  },
  'a PreCompact hook blocks the compaction': { steps: [tooLong(), tooLong()], messages: exchange(), hooks: { beforeCompact: () => ({ block: '[callback]' }) } },
  'the compaction call fails': { steps: [tooLong()], messages: exchange(), scripted: { summary: () => overloaded() }, config: { maxRetries: 0 } },
  'abort while compacting': {
    steps: [tooLong()],
    messages: exchange(),
    modelDelayMs: 1000,
    onStart: abortWhen((s) => s.matches({ turn: 'compacting' })),
  },
  'retries run out': { steps: [overloaded(), overloaded()], config: { maxRetries: 1 } },
  'an invalid reply, then a valid one': {
    steps: [reply.toolUse([{ id: 'x', name: 'echo', input: [1, 2] }]), reply.text('ok')],
    tools: [echoTool()],
  },
  'max turns': { steps: [reply.toolUse([use('t1')])], tools: [echoTool()], config: { maxTurns: 1 } },
  budget: {
    steps: [{ ...reply.toolUse([use('t1')]), usage: { input_tokens: 1000 } }],
    tools: [echoTool()],
    config: { model: 'claude-sonnet-4-5', maxBudgetUsd: 0.001 },
  },
  'abort while the model streams': { steps: [reply.text('never')], modelDelayMs: 1000, onStart: (a) => setTimeout(() => a.send({ type: 'ABORT' }), 5) },
  'abort while tools run': {
    steps: [reply.toolUse([use('slow')])],
    tools: [echoTool({ delayMs: 5000 })],
    onStart: abortWhen((s) => s.context.turn.startedToolIds.includes('slow')),
  },
  'abort while waiting to retry': {
    steps: [overloaded(), reply.text('never')],
    config: { retryBaseMs: 10_000 },
    onStart: abortWhen((s) => s.matches('waitingToRetry')),
  },
  // Sent while the results are written (from a listener of that message): it lands before the event that ends the rest.
  'abort while appending results': {
    steps: [reply.toolUse([use('t1')]), reply.text('never')],
    tools: [echoTool()],
    onStart: (actor) => actor.on('message', (e) => e.origin === 'tools' && actor.send({ type: 'ABORT' })),
  },
  'the tool runner crashes': {
    steps: [],
    get machine() {
      return crashingRunner(); // a fresh scripted model each run
    },
  },
};

async function eventsOf(names: string[]) {
  const runs = [];
  for (const name of names) {
    const run = await drive(scenarios[name] as DriveOptions);
    expect(run.context.exitReason, name).not.toBeNull();
    runs.push(run.events);
  }
  return runs;
}

const missingFrom = (runs: Awaited<ReturnType<typeof eventsOf>>) => {
  const taken = takenTransitions(agentMachine, runs);
  return listTransitions(agentMachine)
    .map((t) => t.key)
    .filter((key) => !taken.has(key));
};

describe('transition coverage', () => {
  it('takes every transition of the machine definition in its own scenarios', async () => {
    const missing = missingFrom(await eventsOf(Object.keys(scenarios)));
    expect(missing, `transitions no scenario took:\n${missing.join('\n')}`).toEqual([]);
  });

  it('names exactly the transitions of a scenario that is left out', async () => {
    const missing = missingFrom(await eventsOf(Object.keys(scenarios).filter((n) => n !== 'refusal' && n !== 'budget')));
    expect(missing).toEqual(['turn.checkingReply --always [isRefusal]--> done', 'appendingResults --RESULTS_APPENDED [reachedBudget]--> done']);
  });
});
