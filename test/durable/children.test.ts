/**
 * A durable run's Agent tool (durable/children.ts): each call's child is a call of an `AgentChild` invocation, keyed by
 * the parent's key and the agent id; the first Agent call of a reply starts, with its own, the children of the later
 * ones the gate allows (a call the gate denies, or that names no agent, starts none), each once; the parent awaits
 * them in the reply's order, and their records land in its own. A child's seed follows from its parent's.
 */
import type * as restate from '@restatedev/restate-sdk';
import { describe, expect, it } from 'vitest';
import type { ModelReply } from '../../src/core/model.js';
import type { ToolContext } from '../../src/core/tool.js';
import type { SessionRecord } from '../../src/transcript/records.js';
import { durableAgentTool, type ChildRequest, type ChildResult } from '../../src/durable/children.js';
import type { DurableRecorder } from '../../src/durable/records.js';
import type { PermissionGate } from '../../src/permissions/gate.js';
import { agentIdOf, childSeed } from '../../src/run/subagents.js';
import type { TraceCarrier } from '../../src/otel/traceContext.js';
import { agentCallSpanId, durableIds } from '../../src/durable/traceIds.js';

const AGENTS = { logger: { description: 'Logs', prompt: 'You log.' } };
const usage = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const use = (id: string, agent = 'logger') => ({ type: 'tool_use' as const, id, name: 'Agent', input: { description: `d ${id}`, prompt: `p ${id}`, subagent_type: agent } });

function harness(reply: ModelReply, denied: string[] = [], trace?: TraceCarrier, env?: Record<string, string>) {
  const calls: { key: string; request: ChildRequest }[] = [];
  const steps: string[] = [];
  const ctx = {
    key: 'sess1',
    request: () => ({ id: 'inv_1' }),
    genericCall: ({ key, parameter }: { key: string; parameter: ChildRequest }) => {
      calls.push({ key, request: parameter });
      steps.push(`call ${parameter.call.toolUseId}`);
      const result: ChildResult = {
        result: { agentId: agentIdOf(parameter.call.toolUseId), state: 'done', exitReason: 'completed', text: `done ${parameter.call.toolUseId}`, model: 'm', usage, toolUses: 0, durationMs: 1, turnCount: 1 },
        records: [{ type: 'message', at: '2026-01-01T00:00:00.000Z' } as unknown as SessionRecord],
      };
      return Promise.resolve(result);
    },
  } as unknown as restate.ObjectContext;
  const decided: string[] = [];
  const gate = { decide: async ({ block }: { block: { id: string } }) => (decided.push(block.id), denied.includes(block.id) ? { behavior: 'deny' } : { behavior: 'allow' }) } as unknown as PermissionGate;
  const events: string[] = [];
  const records = { onEvent: (e: { type: string; toolUseId: string }) => events.push(`${e.type} ${e.toolUseId}`), agentRecords: (id: string, _a: string, r: unknown[]) => events.push(`${r.length} records ${id}`) } as unknown as DurableRecorder;
  const parent = { sessionId: 'sess1', run: { prompt: 'hi' }, model: 'claude-test', seed: 7 };
  const journal = { id: 'inv_1', run: async (name: string, action: () => Promise<unknown>) => (steps.push(name), action()), sleep: async () => {} };
  const tool = durableAgentTool(ctx, { agents: AGENTS, parent, trace, gate, lastReply: () => reply, records, journal: journal as never, cancelled: () => {} });
  const run = (id: string) => {
    const block = reply.content.find((b) => b.type === 'tool_use' && b.id === id) as { input: unknown };
    return tool.run(block.input, { cwd: '/', signal: new AbortController().signal, toolUseId: id, ...(env ? { env } : {}) } as ToolContext);
  };
  return { calls, decided, events, tool, run, steps };
}

describe("a durable run's Agent tool", () => {
  it("starts the reply's later children with the first, each once, and awaits each in order", async () => {
    const reply = { content: [use('t1'), use('t2'), use('t3', 'nobody'), use('t4'), use('t5')], stopReason: 'tool_use', usage, droppedIncompleteBlock: false } as ModelReply;
    const { calls, decided, events, tool, run } = harness(reply, ['t4']);
    expect(tool.isConcurrencySafe?.({})).toBe(false);
    const first = await run('t1');
    expect(first.content).toContain('done t1');
    expect(calls.map((c) => c.request.call.toolUseId), 'started together: not the unknown agent, not the denied call').toEqual(['t1', 't2', 't5']);
    expect(decided, 'the gate asked about the later calls only (the first was decided before it ran)').toEqual(['t2', 't4', 't5']);
    expect(calls[0]?.key).toBe(`sess1/${agentIdOf('t1')}`);
    expect(calls[0]?.request).toMatchObject({ sessionId: 'sess1', model: 'claude-test', seed: childSeed(7, 't1'), call: { agentType: 'logger', prompt: 'p t1', description: 'd t1' } });
    expect((await run('t2')).content).toContain('done t2');
    expect(calls, 'no second start').toHaveLength(3);
    expect(events).toEqual(['agent_start t1', '1 records t1', 'agent_end t1', 'agent_start t2', '1 records t2', 'agent_end t2']);
  });

  it("journals each child's trace context before its call: the Agent call's span's, a later call's by the id its span will take", async () => {
    const reply = { content: [use('t1'), use('t2')], stopReason: 'tool_use', usage, droppedIncompleteBlock: false } as ModelReply;
    const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
    const env = { TRACEPARENT: `00-${TRACE}-${agentCallSpanId('inv_1', 't1')}-01`, TRACESTATE: 'v=1' };
    const traced = harness(reply, [], undefined, env);
    await traced.run('t1');
    expect(traced.steps.filter((s) => !s.startsWith('tool '))).toEqual(['trace of t1', 'call t1', 'trace of t2', 'call t2']);
    expect(traced.calls.map((c) => c.request.trace)).toEqual([
      { traceparent: env.TRACEPARENT, tracestate: 'v=1' },
      { traceparent: `00-${TRACE}-${agentCallSpanId('inv_1', 't2')}-01`, tracestate: 'v=1' },
    ]);
    // The span a durable run starts for an Agent call takes that id in every attempt; other tools' take random ones.
    const ids = durableIds('inv_1');
    expect([ids.toolSpanId?.(use('t2')), ids.toolSpanId?.({ ...use('t2'), name: 'Bash' })]).toEqual([agentCallSpanId('inv_1', 't2'), undefined]);
    expect(durableIds('inv_1').traceId).toBe(ids.traceId);
    expect(durableIds('inv_2').traceId).not.toBe(ids.traceId);

    // Not traced: the trace the run came with (a submitter's), else none.
    const submitted = { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` };
    const plain = harness(reply, [], submitted);
    await plain.run('t1');
    expect(plain.calls.map((c) => c.request.trace)).toEqual([submitted, submitted]);
    const none = harness(reply, [], { traceparent: 'nonsense' });
    await none.run('t1');
    expect(none.calls.map((c) => 'trace' in c.request)).toEqual([false, false]);
  });

  it("derives a child's seed from its parent's and the call", () => {
    expect(childSeed(7, 'toolu_1')).toBe(childSeed(7, 'toolu_1'));
    expect(childSeed(7, 'toolu_1')).not.toBe(childSeed(8, 'toolu_1'));
    expect(childSeed(7, 'toolu_1')).not.toBe(childSeed(7, 'toolu_2'));
  });
});

describe('a durable run\'s agents as submitted', () => {
  it('are checked where the request is (a bad one is a 400) and where submit reads --agents (a usage error)', async () => {
    const { requestProblem } = await import('../../src/durable/protocol.js');
    const { parseCommandLine } = await import('../../src/cli/commandLine/args.js');
    expect(requestProblem({ prompt: 'hi', agents: AGENTS })).toBeUndefined();
    expect(requestProblem({ prompt: 'hi', agents: { logger: { prompt: 'no description' } } })).toMatch(/^"agents"\.logger/);
    expect(requestProblem({ prompt: 'hi', agents: [] })).toMatch(/"agents" must be an object/);
    expect(parseCommandLine(['submit', '-p', 'hi', '--agents', JSON.stringify(AGENTS)])).toMatchObject({ command: 'submit', agents: JSON.stringify(AGENTS) });
    expect(() => parseCommandLine(['submit', '-p', 'hi', '--agents', '{nope'])).toThrow(/--agents takes a JSON object of agents/);
  });
});
