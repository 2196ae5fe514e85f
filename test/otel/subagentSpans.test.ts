/**
 * A traced run's subagent (runAgent({ agents, tracing })): the child's `invoke_agent` span, named for the agent, is the
 * child of the Agent call's `execute_tool` span, and the child's own `chat` and `execute_tool` spans are under it, all
 * in the parent's trace (through the real OpenTelemetry SDK and its in-memory exporter).
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { echoTool } from '../support/drive.js';

let exporter: InMemorySpanExporter;
let provider: BasicTracerProvider;
beforeEach(() => {
  exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
});
afterEach(() => provider.shutdown());

const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan | undefined) => span?.spanContext().spanId;

describe('the spans of a run with a subagent', () => {
  it("nest the child's invoke_agent under the Agent call's execute_tool, its chat and tool spans under it", async () => {
    const parent = scriptedModel([reply.toolUse([{ id: 'p1', name: 'Agent', input: { description: 'Review', prompt: 'Review it', subagent_type: 'reviewer' } }]), reply.text('Done.')]);
    const child = scriptedModel([reply.toolUse([{ id: 'c1', name: 'echo', input: { text: 'x' } }]), reply.text('Fine.')]);
    await runAgent('go', {
      model: 'claude-test',
      modelCall: parent.call,
      tools: [echoTool()],
      agents: { reviewer: { description: 'Reviews', prompt: 'You review.', modelCall: child.call } },
      tracing: { tracer: provider.getTracer('test'), conventions: { latest: true, captureContent: false } },
    });
    const spans = exporter.getFinishedSpans();
    const named = (name: string) => spans.filter((s) => s.name === name);
    const [root] = named('invoke_agent agentloop');
    const [agentCall] = named('execute_tool Agent');
    const [reviewer] = named('invoke_agent reviewer');
    expect(parentOf(agentCall)).toBe(idOf(root));
    expect(parentOf(reviewer)).toBe(idOf(agentCall));
    expect(reviewer?.attributes['gen_ai.agent.name']).toBe('reviewer');
    const childChats = named('chat claude-test').filter((s) => parentOf(s) === idOf(reviewer));
    expect(childChats).toHaveLength(2);
    expect(parentOf(named('execute_tool echo')[0])).toBe(idOf(reviewer));
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    // The child's spans end before the call that ran it: the simple processor exports each span as it ends, so the
    // order of the finished spans is the order of their ends (their endTime values come from clocks anchored at
    // different moments, up to a millisecond apart: comparing them failed 1 run in 3 under load).
    expect(spans.indexOf(reviewer!)).toBeLessThan(spans.indexOf(agentCall!));
    expect(spans.indexOf(childChats.at(-1)!)).toBeLessThan(spans.indexOf(reviewer!));
  });
});
