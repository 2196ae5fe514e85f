/** The embedder's hooks: gate or change a tool call, change its result, prune what is sent. */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import type { MessageParam } from '../../src/core/messages.js';
import { historyProblems } from '../../src/history/validate.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { runAgent, type RunAgentOptions } from '../../src/run/runAgent.js';
import { echoTool } from '../support/drive.js';

function counting() {
  const runs: unknown[] = [];
  return { runs, tool: { ...echoTool(), run: async (input: unknown) => (runs.push(input), { content: `ran ${JSON.stringify(input)}`, isError: false }) } };
}

async function run(hooks: RunAgentOptions['hooks'], steps = [reply.toolUse([{ id: 't1', name: 'echo', input: { text: 'rm -rf x' } }]), reply.text('ok')]) {
  const { runs, tool } = counting();
  const model = scriptedModel(steps);
  const events: RunEvent[] = [];
  const result = await runAgent('go', { model: 'm', modelCall: model.call, tools: [tool], hooks, onEvent: (e) => events.push(e) });
  return { runs, result, model, events };
}

const resultOf = (messages: MessageParam[], id: string) =>
  messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).find((b) => b.type === 'tool_result' && b.tool_use_id === id);

describe('beforeToolCall', () => {
  it('denies a call: it never runs, the model gets an is_error result with the reason', async () => {
    const { runs, result } = await run({ beforeToolCall: () => ({ action: 'deny', reason: 'no deletes here' }) });
    expect(runs).toEqual([]);
    expect(resultOf(result.context.messages, 't1')).toMatchObject({ is_error: true, content: 'Not run: no deletes here' });
    expect(result.context.exitReason).toBe('completed');
  });

  it('changes the input the tool runs with; the history keeps the model’s own', async () => {
    const { runs, result } = await run({ beforeToolCall: () => ({ action: 'change', input: { text: 'ls' } }) });
    expect(runs).toEqual([{ text: 'ls' }]);
    expect(result.context.messages[1]?.content).toMatchObject([{ type: 'tool_use', input: { text: 'rm -rf x' } }]);
  });

  it('allows a call when it returns nothing, and sees the tool it names', async () => {
    const seen: string[] = [];
    const { runs } = await run({ beforeToolCall: ({ block, tool }) => void seen.push(`${block.name}:${tool?.name}`) });
    expect(runs).toHaveLength(1);
    expect(seen).toEqual(['echo:echo']);
  });

  it('denies a call when it throws, with the error as the reason', async () => {
    const { runs, result } = await run({
      beforeToolCall: () => {
        throw new Error('policy service down');
      },
    });
    expect(runs).toEqual([]);
    expect(resultOf(result.context.messages, 't1')).toMatchObject({ is_error: true, content: 'Not run: policy service down' });
  });
});

describe('afterToolCall', () => {
  it('changes the result the model gets, also a denied call’s; a throw keeps the result', async () => {
    const changed = await run({ afterToolCall: ({ output }) => ({ ...output, content: `${output.content} [checked]` }) });
    expect(resultOf(changed.result.context.messages, 't1')).toMatchObject({ content: 'ran {"text":"rm -rf x"} [checked]' });
    const denied = await run({ beforeToolCall: () => ({ action: 'deny', reason: 'no' }), afterToolCall: ({ output }) => ({ ...output, content: 'redacted' }) });
    expect(resultOf(denied.result.context.messages, 't1')).toMatchObject({ content: 'redacted', is_error: true });
    const thrown = await run({
      afterToolCall: () => {
        throw new Error('x');
      },
    });
    expect(resultOf(thrown.result.context.messages, 't1')).toMatchObject({ content: 'ran {"text":"rm -rf x"}' });
  });
});

describe('transformContext', () => {
  it('sends what it returns, leaves the history as it is, and the request event shows what was sent', async () => {
    const steps = [reply.toolUse([{ id: 't1', name: 'echo', input: { text: 'big' } }]), reply.text('ok')];
    const prune = (messages: readonly MessageParam[]) =>
      messages.map((m) =>
        typeof m.content === 'string' ? m : { ...m, content: m.content.map((b) => (b.type === 'tool_result' ? { ...b, content: '[pruned]' } : b)) },
      ) as MessageParam[];
    const { result, model, events } = await run({ transformContext: prune }, steps);
    expect(JSON.stringify(model.requests[1]?.messages)).toContain('[pruned]');
    expect(JSON.stringify(result.context.messages)).not.toContain('[pruned]');
    const sent = events.filter((e): e is Extract<RunEvent, { type: 'request' }> => e.type === 'request');
    expect(JSON.stringify(sent[1]?.body.messages)).toContain('[pruned]');
    expect(historyProblems(result.context.messages)).toEqual([]);
  });

  it('fails the model call when it throws, like any model error', async () => {
    const { result } = await run({
      transformContext: () => {
        throw new Error('pruner broke');
      },
    });
    expect(result.state).toBe('failed');
    expect(result.context.error?.message).toBe('pruner broke');
  });
});
