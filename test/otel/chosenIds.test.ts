/**
 * The ids a run chooses for some of its spans (otel/ids.ts, `RunTracing.ids`: a durable run's, the same on every
 * attempt): its trace's id when it has no parent, and an Agent call's `execute_tool` span id. A provider whose id
 * generator is `chosenIds` (the CLI's and the worker's) takes them; every other span keeps a random id, and a provider
 * with its own generator is not disturbed (through the real OpenTelemetry SDK).
 */
import { BasicTracerProvider, InMemorySpanExporter, RandomIdGenerator, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { chosenIds } from '../../src/otel/ids.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { echoTool } from '../support/drive.js';

const TRACE = 'ab'.repeat(16);
const AGENT_SPAN = 'cd'.repeat(8);

async function traced(idGenerator?: RandomIdGenerator | ReturnType<typeof chosenIds>): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)], ...(idGenerator ? { idGenerator } : {}) });
  const parent = scriptedModel([reply.toolUse([{ id: 'p1', name: 'Agent', input: { description: 'R', prompt: 'Review', subagent_type: 'reviewer' } }, { id: 'p2', name: 'echo', input: { text: 'x' } }]), reply.text('Done.')]);
  const child = scriptedModel([reply.toolUse([{ id: 'c1', name: 'echo', input: { text: 'y' } }]), reply.text('Fine.')]);
  await runAgent('go', {
    model: 'claude-test',
    modelCall: parent.call,
    tools: [echoTool()],
    agents: { reviewer: { description: 'Reviews', prompt: 'You review.', modelCall: child.call } },
    tracing: { tracer: provider.getTracer('test'), ids: { traceId: TRACE, toolSpanId: (block) => (block.name === 'Agent' ? AGENT_SPAN : undefined) } },
  });
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

describe('the ids a run chooses', () => {
  it("are its trace's id and its Agent call's span id; the others' stay random and distinct", async () => {
    const spans = await traced(chosenIds(new RandomIdGenerator()));
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([TRACE]));
    const agentCall = spans.find((s) => s.name === 'execute_tool Agent');
    expect(agentCall?.spanContext().spanId).toBe(AGENT_SPAN);
    expect(spans.find((s) => s.name === 'invoke_agent reviewer')?.parentSpanContext?.spanId).toBe(AGENT_SPAN);
    const ids = spans.map((s) => s.spanContext().spanId);
    expect(new Set(ids).size, 'every span its own id').toBe(ids.length);
  });

  it('are not taken by a provider with its own generator, whose ids stay random', async () => {
    const spans = await traced();
    expect(spans.some((s) => s.spanContext().traceId === TRACE || s.spanContext().spanId === AGENT_SPAN)).toBe(false);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
  });
});
