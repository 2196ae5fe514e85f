/** What the machine emits: every model call a step, each branch named, every write announced. */
import { describe, expect, it } from 'vitest';
import type { MachineEvent } from '../../src/core/events.js';
import { ModelError } from '../../src/core/model.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { reply, scriptedModel, type ScriptedReply } from '../../src/scripted/model.js';
import { modelActor, toolRunnerActor } from '../../src/run/actors.js';
import { drive, echoTool, requestProblems } from '../support/drive.js';
import { cut, paused, SIX_CALLS } from '../support/sixCalls.js';

const overloaded = () => ({ error: new ModelError('overloaded', 'Overloaded', { status: 529, apiType: 'overloaded_error' }) });
const of = <T extends MachineEvent['type']>(events: MachineEvent[], type: T) =>
  events.filter((e): e is Extract<MachineEvent, { type: T }> => e.type === type);

describe('the machine announces every step', () => {
  it('makes each model call its own transition: three max_tokens continuations, a pause_turn and a retry', async () => {
    const run = await drive({ steps: [cut('a'), cut('b'), cut('c'), paused, overloaded(), reply.text('done')] });
    expect(run.context.exitReason).toBe('completed');
    const calls = of(run.events, 'transition').filter((e) => e.state === 'callingModel');
    expect(calls.map((e) => [e.turnCount, e.transitionReason])).toEqual(SIX_CALLS);
    expect(run.requests).toHaveLength(calls.length);
    expect(requestProblems(run.requests)).toEqual([]);
  });

  it('names the guard of each branch taken, in order', async () => {
    const run = await drive({ steps: [reply.toolUse([{ id: 't1', name: 'echo', input: {} }]), overloaded(), reply.text('ok')], tools: [echoTool()] });
    expect(of(run.events, 'decision').map((d) => `${d.state}[${d.guard}]->${d.target}`)).toEqual([
      'checkingContext[else]->callingModel',
      'checkingReply[needsFollowUp]->executingTools',
      'appendingResults[else]->turn',
      'checkingContext[else]->callingModel',
      'checkingError[canRetry]->waitingToRetry',
      'checkingContext[else]->callingModel',
      'checkingReply[else]->done',
    ]);
  });

  it('announces the retry with its error and delay, on entering waitingToRetry', async () => {
    const run = await drive({ steps: [overloaded(), reply.text('ok')], config: { retryBaseMs: 8 } });
    const i = run.events.findIndex((e) => e.type === 'retry');
    expect(run.events[i - 1]).toMatchObject({ type: 'transition', state: 'waitingToRetry' });
    expect(run.events[i]).toMatchObject({ attempt: 1, error: { kind: 'overloaded', apiType: 'overloaded_error', message: 'Overloaded' } });
    const retry = run.events[i] as Extract<MachineEvent, { type: 'retry' }>;
    expect(retry.delayMs).toBeGreaterThanOrEqual(6);
    expect(retry.delayMs).toBeLessThanOrEqual(8);
  });

  it('announces every write to the history with its index and origin, each message once, then the reply’s metadata', async () => {
    const run = await drive({
      steps: [{ ...reply.toolUse([{ id: 't1', name: 'echo', input: {} }]), usage: { input_tokens: 10, output_tokens: 5 } }, cut('x'), reply.text('end')],
      tools: [echoTool()],
    });
    const messages = of(run.events, 'message');
    expect(messages.map((m) => [m.index, m.origin, m.message.role])).toEqual([
      [1, 'model', 'assistant'],
      [2, 'tools', 'user'],
      [3, 'model', 'assistant'],
      [4, 'continuation', 'user'],
      [5, 'model', 'assistant'],
    ]);
    messages.forEach((m) => expect(m.message).toBe(run.context.messages[m.index]));
    const replies = of(run.events, 'reply');
    expect(replies.map((r) => [r.turnCount, r.index, r.stopReason, r.needsFollowUp])).toEqual([
      [1, 1, 'tool_use', true],
      [2, 3, 'max_tokens', false],
      [3, 5, 'end_turn', false],
    ]);
    expect(replies[0]?.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
    expect(replies[2]?.total).toEqual(run.context.usage);
    const first = run.events.findIndex((e) => e.type === 'message');
    expect(run.events[first + 1]?.type).toBe('reply');
  });

  it('announces a tool_use the moment it is complete in the stream, before the tool starts and before the reply', async () => {
    const run = await drive({ steps: [reply.toolUse([{ id: 's', name: 'safe', input: {} }]), reply.text('ok')], tools: [echoTool({ name: 'safe', safe: true })] });
    const at = (type: MachineEvent['type']) => run.events.findIndex((e) => e.type === type);
    expect(at('tool_use')).toBeLessThan(at('tool_start'));
    expect(at('tool_start')).toBeLessThan(at('message'));
    expect(at('message')).toBe(at('reply') - 1);
    // The tool may finish before the reply is whole; its result joins the history after the reply.
    const results = run.events.findIndex((e) => e.type === 'message' && e.origin === 'tools');
    expect(results).toBeGreaterThan(at('reply'));
  });

  it('says how the run ended on the final transition', async () => {
    const run = await drive({ steps: [{ content: [{ type: 'text', text: 'No.' }], stop_reason: 'refusal' }] });
    expect(of(run.events, 'transition').at(-1)).toMatchObject({ state: 'done', exitReason: 'refusal', transitionReason: null });
  });
});

describe('needsFollowUp', () => {
  it('is what sends the loop to the tools: a guard that reads stop_reason instead misses a tool_use in an end_turn reply', async () => {
    const saysEndTurn: ScriptedReply = { ...reply.toolUse([{ id: 't1', name: 'echo', input: {} }]), stop_reason: 'end_turn' };
    const tools = [echoTool()];
    const right = await drive({ steps: [saysEndTurn, reply.text('done')], tools });
    expect(right.context.turnCount).toBe(2);
    const model = scriptedModel([saysEndTurn, reply.text('done')]);
    const byStopReason = agentMachine.provide({
      actors: { callModel: modelActor(model.call), runTools: toolRunnerActor(tools, process.cwd()) },
      guards: { needsFollowUp: ({ context }) => context.stopReason === 'tool_use' },
    });
    const wrong = await drive({ steps: [], tools, machine: byStopReason });
    expect(wrong.context.exitReason).toBe('completed');
    expect(wrong.context.turnCount).toBe(1);
    expect(wrong.context.messages.at(-1)?.content).toMatchObject([{ type: 'tool_use', id: 't1' }]);
  });
});

describe('randomness comes from the seed', () => {
  it('waits the same between retries for the same seed, and differently for another', async () => {
    const delays = async (seed: number) =>
      of((await drive({ steps: [overloaded(), overloaded(), reply.text('ok')], seed, config: { retryBaseMs: 4 } })).events, 'retry').map((r) => r.delayMs);
    const a = await delays(1);
    expect(await delays(1)).toEqual(a);
    const others = await Promise.all([2, 3, 4, 5, 6].map(delays));
    expect(others.some((d) => d.join() !== a.join())).toBe(true);
  });
});

describe('fallback model and budget', () => {
  it('switches to the fallback model after 3 overloaded errors in a row, at once, for the rest of the run; its failures counted afresh', async () => {
    const run = await drive({
      steps: [overloaded(), overloaded(), overloaded(), overloaded(), reply.toolUse([{ id: 't1', name: 'echo', input: {} }]), reply.text('ok')],
      tools: [echoTool()],
      config: { model: 'big-model', fallbackModel: 'small-model', maxRetries: 3 },
    });
    expect(run.requests.map((r) => r.model)).toEqual(['big-model', 'big-model', 'big-model', 'small-model', 'small-model', 'small-model']);
    const retries = of(run.events, 'retry').map((e) => [e.attempt, e.model, e.fallbackFrom, e.delayMs === 0]);
    expect(retries).toEqual([
      [1, 'big-model', undefined, false],
      [2, 'big-model', undefined, false],
      [0, 'small-model', 'big-model', true],
      [1, 'small-model', undefined, false],
    ]);
  });

  it('an error of another kind breaks the streak: the fallback waits for 3 overloaded answers in a row', async () => {
    const rateLimited = () => ({ error: new ModelError('rate_limit', 'Slow down', { status: 429 }) });
    const run = await drive({
      steps: [overloaded(), overloaded(), rateLimited(), overloaded(), reply.text('ok')],
      config: { model: 'big-model', fallbackModel: 'small-model', maxRetries: 10 },
    });
    expect(run.requests.map((r) => r.model)).toEqual(['big-model', 'big-model', 'big-model', 'big-model', 'big-model']);
    expect(of(run.events, 'retry').map((e) => e.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('stops with max_budget once the cost passes the budget, with the last tools answered', async () => {
    const expensive = (id: string) => ({ ...reply.toolUse([{ id, name: 'echo', input: {} }]), usage: { input_tokens: 100_000 } });
    const run = await drive({ steps: [expensive('t0'), expensive('t1'), reply.text('never')], tools: [echoTool()], config: { model: 'claude-sonnet-4-5', maxBudgetUsd: 0.5 } });
    expect(run.context.exitReason).toBe('max_budget');
    expect(run.context.turnCount).toBe(2);
    expect(run.context.costUsd).toBeCloseTo(0.6, 6);
    expect(run.context.messages.at(-1)).toMatchObject({ role: 'user', content: [{ tool_use_id: 't1' }] });
    expect(requestProblems(run.requests)).toEqual([]);
  });
});
