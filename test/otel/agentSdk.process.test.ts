/**
 * An Agent SDK program's trace holds agentloop's spans: the real Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`)
 * drives the built CLI as its engine, from inside a span of the program's own OpenTelemetry setup (a context manager,
 * the W3C propagator, a tracer). The SDK forwards the active span the way it documents for Claude Code: it injects it
 * with the OpenTelemetry propagation API into the engine's environment (`TRACEPARENT`, `TRACESTATE`). agentloop sends
 * its spans as OTLP to a receiver on 127.0.0.1; each run's `invoke_agent` must be a child of the program's span.
 */
import { createSdkMcpServer, query, tool, type Options, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { context, propagation, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bashUse, lastToolResults, resultText } from '../support/agentServer.js';
import { CLI } from '../support/cli.js';
import type { RequestBody } from '../support/messagesServer.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';
import { promptStream } from '../cli/sdk/scenarios.js';

let project: CliProject;
let receiver: OtlpReceiver;
cliProjectPerTest('otel-sdk', (p) => (project = p), { noViolations: true });
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

// The program's own OpenTelemetry setup, as an instrumented Node program has it.
const contextManager = new AsyncLocalStorageContextManager();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
const tracer = provider.getTracer('sdk-program');
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(async () => {
  context.disable();
  propagation.disable();
  await provider.shutdown();
});

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const agents = () => receiver.spans.filter((s) => s.name === 'invoke_agent agentloop');
// The tools these runs call are allowed, as an Agent SDK program must allow them: without a rule only read-only
// commands run (Claude Code's -p default, 3a52e9e).
const options = (): Options => ({
  pathToClaudeCodeExecutable: CLI,
  cwd: project.dir,
  env: { ...project.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
  allowedTools: ['Bash(echo:*)', 'mcp__inproc'],
});

async function drain(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const message of messages) out.push(message);
  return out;
}

/** Runs `work` inside an active span of the program; the span's ids. */
async function inProgramSpan(work: () => Promise<unknown>): Promise<{ traceId: string; spanId: string }> {
  return tracer.startActiveSpan('my-program request', async (span: Span) => {
    try {
      await work();
    } finally {
      span.end();
    }
    const { traceId, spanId } = span.spanContext();
    return { traceId, spanId };
  });
}

/** A span's place: its trace and its parent, to compare with the program span's ids. */
const placeOf = (span: ReceivedSpan | undefined) => ({ traceId: span?.traceId, spanId: span?.parentSpanId });

describe("an Agent SDK program's active span", () => {
  it("is the parent of agentloop's invoke_agent, and its trace reaches the command a tool runs", async () => {
    project.server.enqueue({ content: [bashUse('t1', 'echo "tp=$TRACEPARENT"')], stop_reason: 'tool_use' }, answer('done'));
    let messages: SDKMessage[] = [];
    const program = await inProgramSpan(async () => (messages = await drain(query({ prompt: 'go', options: options() }))));
    expect(messages.find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', result: 'done' });
    const [agent] = agents();
    expect(placeOf(agent)).toEqual(program);
    expect(receiver.spans.every((s) => s.traceId === program.traceId)).toBe(true);
    const tool = receiver.spans.find((s) => s.name === 'execute_tool bash');
    expect(tool?.parentSpanId).toBe(agent?.spanId);
    const output = resultText(lastToolResults(project.server.requests[1]?.body as RequestBody)[0]!);
    expect(output).toContain(`tp=00-${program.traceId}-${tool?.spanId}-01`);
  });

  it('streaming input: each question is an invoke_agent of its own under the same program span', async () => {
    project.server.enqueue(answer('one'), answer('two'));
    const program = await inProgramSpan(async () => {
      const prompts = promptStream();
      const q = query({ prompt: prompts, options: options() });
      prompts.push('first');
      let results = 0;
      for await (const message of q) {
        if (message.type !== 'result') continue;
        results += 1;
        if (results === 1) prompts.push('second');
        else prompts.end();
      }
    });
    const runs = agents();
    expect(runs).toHaveLength(2);
    for (const run of runs) expect(placeOf(run)).toEqual(program);
  });

  it("an in-process MCP server's tool: an execute_tool span with the MCP attributes, whose trace context the server gets", async () => {
    project.server.enqueue({ content: [{ type: 'tool_use', id: 'm1', name: 'mcp__inproc__where', input: {} }], stop_reason: 'tool_use' }, answer('done'));
    let received: unknown;
    const where = tool('where', 'Say which trace this call is in.', {}, async (_args, extra) => {
      received = (extra as { _meta?: { traceparent?: unknown } })._meta?.traceparent;
      return { content: [{ type: 'text' as const, text: 'here' }] };
    });
    const mcpServers = { inproc: createSdkMcpServer({ name: 'inproc', tools: [where] }) };
    const program = await inProgramSpan(async () => drain(query({ prompt: 'go', options: { ...options(), mcpServers } })));
    const span = receiver.spans.find((s) => s.name === 'execute_tool mcp__inproc__where');
    expect(span?.traceId).toBe(program.traceId);
    expect(span?.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'm1', 'mcp.method.name': 'tools/call', 'agentloop.mcp.server': 'inproc', 'agentloop.mcp.tool': 'where' });
    expect(received).toBe(`00-${program.traceId}-${span?.spanId}-01`);
  });

  it('without an active span, the run is a trace of its own (the parent above came from the program)', async () => {
    project.server.enqueue(answer('alone'));
    await drain(query({ prompt: 'go', options: options() }));
    const [agent] = agents();
    expect(agent?.parentSpanId).toBe('');
  });
});
