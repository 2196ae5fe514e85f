/**
 * A run's spans, from the machine's events (src/otel/runSpans.ts), through the real OpenTelemetry SDK into its
 * in-memory exporter: names, kinds, parentage and the GenAI attributes; a retried call, a tool error, an abort; content
 * only when opted in, in each shape of the conventions, and cleaned of secrets (also of a gateway's error pages that
 * echo the key, through the real SDK); a command's TRACEPARENT.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, SpanKind, trace, type Context } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/core/model.js';
import type { Tool } from '../../src/core/tool.js';
import type { GenAiConventions } from '../../src/otel/conventions.js';
import { runAgent, type RunAgentOptions } from '../../src/run/runAgent.js';
import { reply, scriptedModel, type ScriptStep } from '../../src/scripted/model.js';
import { createBashTool } from '../../src/tools/bash/bashTool.js';
import { startCheckedServer } from '../support/agentServer.js';
import { echoTool } from '../support/drive.js';
import type { RecordedRequest, Step } from '../support/messagesServer.js';

let exporter: InMemorySpanExporter;
let provider: BasicTracerProvider;
let dir: string;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  dir = mkdtempSync(join(tmpdir(), 'agentloop-otel-'));
});
afterEach(async () => {
  await provider.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

const OFF: GenAiConventions = { latest: true, captureContent: false };

async function traced(steps: ScriptStep[], options: Partial<RunAgentOptions> & { conventions?: GenAiConventions; parent?: Context } = {}) {
  const { conventions = OFF, parent, ...rest } = options;
  const model = scriptedModel(steps);
  const result = await runAgent('list the files', {
    model: 'claude-test',
    modelCall: model.call,
    tools: [echoTool()],
    cwd: dir,
    retryBaseMs: 1,
    retryMaxMs: 2,
    tracing: { tracer: provider.getTracer('test'), conventions, ...(parent ? { parent } : {}) },
    ...rest,
  });
  const spans = exporter.getFinishedSpans();
  return { result, spans, named: (name: string) => spans.filter((s) => s.name === name) };
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const echo = (id: string, text: string) => reply.toolUse([{ id, name: 'echo', input: { text } }]);

describe('the spans of a run', () => {
  it('one invoke_agent around a chat per model call and an execute_tool per tool call, all in one trace', async () => {
    const { result, spans, named } = await traced([echo('t1', 'hi'), reply.text('done', { input_tokens: 7, output_tokens: 3 })]);
    const [run] = named('invoke_agent agentloop');
    const chats = named('chat claude-test');
    const tools = named('execute_tool echo');
    expect(run && chats.length === 2 && tools.length === 1).toBe(true);
    expect(spans).toHaveLength(4);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(run?.kind).toBe(SpanKind.INTERNAL);
    expect(chats.map((s) => s.kind)).toEqual([SpanKind.CLIENT, SpanKind.CLIENT]);
    expect(tools[0]?.kind).toBe(SpanKind.INTERNAL);
    for (const child of [...chats, ...tools]) expect(parentOf(child)).toBe(run?.spanContext().spanId);
    expect(run?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.agent.name': 'agentloop',
      'gen_ai.request.model': 'claude-test',
      'gen_ai.conversation.id': result.sessionId,
      'gen_ai.usage.input_tokens': 7,
      'gen_ai.usage.output_tokens': 3,
      'agentloop.exit_reason': 'completed',
      'agentloop.state': 'done',
      'agentloop.turn_count': 2,
    });
    expect(chats[0]?.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'claude-test', 'agentloop.turn_count': 1, 'gen_ai.response.finish_reasons': ['tool_use'] });
    expect(chats[1]?.attributes).toMatchObject({ 'agentloop.turn_count': 2, 'agentloop.transition_reason': 'tool_result', 'gen_ai.response.finish_reasons': ['end_turn'] });
    expect(chats[0]?.attributes['gen_ai.response.time_to_first_chunk']).toBeTypeOf('number');
    expect(tools[0]?.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'echo', 'gen_ai.tool.call.id': 't1' });
    expect(spans.every((s) => s.status.code !== 2)).toBe(true);
    // The loop's own steps are events of the run's span, as the machine announced them.
    const states = run?.events.filter((e) => e.name === 'agentloop.transition').map((e) => e.attributes?.['agentloop.state']);
    expect(states).toEqual(['callingModel', 'executingTools', 'appendingResults', 'callingModel', 'done']);
  });

  it('a retried call is a chat span of its own, ended in its error with the wait; the next attempt says so', async () => {
    const overloaded = new ModelError('overloaded', 'Overloaded', { status: 529, apiType: 'overloaded_error' });
    const { named } = await traced([{ error: overloaded }, reply.text('done')]);
    const chats = named('chat claude-test');
    expect(chats).toHaveLength(2);
    expect(chats[0]?.status).toMatchObject({ code: 2, message: 'Overloaded' });
    expect(chats[0]?.attributes).toMatchObject({ 'error.type': 'overloaded_error' });
    expect(chats[0]?.attributes['agentloop.retry.delay_ms']).toBeTypeOf('number');
    expect(chats[1]?.attributes).toMatchObject({ 'agentloop.retry.attempt': 1, 'agentloop.transition_reason': 'retry' });
    expect(chats[1]?.status.code).not.toBe(2);
  });

  it('a failed run ends its call and its run span with the error', async () => {
    const denied = new ModelError('authentication', 'invalid x-api-key', { status: 401, apiType: 'authentication_error' });
    const { result, named } = await traced([{ error: denied }]);
    expect(result.state).toBe('failed');
    expect(named('chat claude-test')[0]?.attributes['error.type']).toBe('authentication_error');
    const [run] = named('invoke_agent agentloop');
    expect(run?.status.code).toBe(2);
    expect(run?.attributes).toMatchObject({ 'error.type': 'authentication_error', 'agentloop.exit_reason': 'model_error', 'agentloop.state': 'failed' });
  });

  it('a tool that answers with an error ends its span in error; the run goes on', async () => {
    const failing: Tool = { name: 'echo', description: 'fails', inputSchema: { type: 'object' }, run: async () => ({ isError: true, content: 'no such file' }) };
    const { named } = await traced([echo('t1', 'x'), reply.text('done')], { tools: [failing] });
    expect(named('execute_tool echo')[0]?.status.code).toBe(2);
    expect(named('execute_tool echo')[0]?.attributes['error.type']).toBe('tool_error');
    expect(named('invoke_agent agentloop')[0]?.status.code).not.toBe(2);
  });

  it('an abort ends every open span: the running tool, the run (error.type aborted)', async () => {
    const controller = new AbortController();
    const slow: Tool = {
      name: 'echo',
      description: 'waits',
      inputSchema: { type: 'object' },
      run: (_input, { signal }) => {
        controller.abort();
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ isError: true, content: 'interrupted' })));
      },
    };
    const { result, spans, named } = await traced([echo('t1', 'x'), reply.text('never')], { tools: [slow], signal: controller.signal });
    expect(result.state).toBe('aborted');
    expect(spans.every((s) => s.ended)).toBe(true);
    expect(named('execute_tool echo')[0]?.status.code).toBe(2);
    expect(named('invoke_agent agentloop')[0]?.attributes).toMatchObject({ 'error.type': 'aborted', 'agentloop.exit_reason': 'aborted' });
  });

  it('joins the given parent: the run span is the child of the caller span, in its trace', async () => {
    const caller = provider.getTracer('caller').startSpan('caller');
    const { named } = await traced([reply.text('hi')], { parent: trace.setSpan(context.active(), caller) });
    caller.end();
    const run = named('invoke_agent agentloop')[0];
    expect(run?.spanContext().traceId).toBe(caller.spanContext().traceId);
    expect(parentOf(run as ReadableSpan)).toBe(caller.spanContext().spanId);
  });
});

describe('content', () => {
  const key = 'sk-ant-api03-secretsecretsecret-0123456789';
  const steps = () => [reply.toolUse([{ id: 't1', name: 'echo', input: { text: `key ${key}` } }]), reply.text('done')];
  const client = { apiKey: key };

  it('is not recorded without the opt-in', async () => {
    const { spans } = await traced(steps(), { client });
    const keys = spans.flatMap((s) => [...Object.keys(s.attributes), ...s.events.flatMap((e) => Object.keys(e.attributes ?? {}))]);
    expect(keys.filter((k) => /messages|instructions|arguments|result|prompt|completion/.test(k))).toEqual([]);
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events]))).not.toContain('key ');
  });

  it('latest conventions: messages, system instructions, tool arguments and results as attributes, without the key', async () => {
    const { named, spans } = await traced(steps(), { client, conventions: { latest: true, captureContent: true } });
    const [first, second] = named('chat claude-test');
    const input = JSON.parse(String(first?.attributes['gen_ai.input.messages']));
    expect(input).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'list the files' }] }]);
    expect(JSON.parse(String(first?.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'tool_call', id: 't1', name: 'echo', arguments: { text: 'key [redacted ANTHROPIC_API_KEY]' } }], finish_reason: 'tool_use' },
    ]);
    expect(first?.attributes['gen_ai.system_instructions']).toBeTypeOf('string');
    expect(JSON.parse(String(second?.attributes['gen_ai.input.messages']))[2]).toMatchObject({ role: 'user', parts: [{ type: 'tool_call_response', id: 't1' }] });
    expect(named('execute_tool echo')[0]?.attributes['gen_ai.tool.call.arguments']).toContain('[redacted ANTHROPIC_API_KEY]');
    expect(named('execute_tool echo')[0]?.attributes['gen_ai.tool.call.result']).toBeTypeOf('string');
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events]))).not.toContain(key);
  });

  it('v1.36 names without the opt-in to the latest: gen_ai.system, and content as span events', async () => {
    const { named } = await traced(steps(), { client, conventions: { latest: false, captureContent: true } });
    const [first] = named('chat claude-test');
    expect(first?.attributes['gen_ai.system']).toBe('anthropic');
    expect(first?.attributes['gen_ai.provider.name']).toBeUndefined();
    expect(first?.attributes['gen_ai.input.messages']).toBeUndefined();
    expect(first?.events.map((e) => e.name)).toEqual(['gen_ai.content.prompt', 'gen_ai.content.completion']);
    expect(String(first?.events[1]?.attributes?.['gen_ai.completion'])).toContain('[redacted ANTHROPIC_API_KEY]');
  });
});

describe('a gateway that echoes the key in its errors', () => {
  const key = 'sk-ant-api03-GATEWAYechoKEY_0123456789-abcdefgh';
  /** The key as the request carried it (`x-api-key`, or the SDK's `Authorization: Bearer`). */
  const echoed = (req: RecordedRequest) => req.headers['x-api-key'] ?? (req.headers.authorization ?? '').replace(/^Bearer /, '');
  // What a gateway does: the request's headers back in a JSON error (retried), in the request id it answers with,
  // in its error type, and in an HTML page (not retried): the chat spans in error and the run span end on them.
  const faults: Step[] = [
    (_b, _i, req) => ({ error: { status: 529, type: `overloaded_error for ${echoed(req)}`, message: `Overloaded for x-api-key: ${echoed(req)}` }, headers: { 'retry-after-ms': '5', 'request-id': `req_${echoed(req)}` } }),
    (_b, _i, req) => ({ error: { status: 401, type: 'authentication_error', message: '' }, raw: { contentType: 'text/html', body: `<html><pre>${JSON.stringify(req.headers)}</pre></html>` } }),
  ];

  it.each([false, true])('no span holds it: status messages, error types, attributes, events (content captured: %s)', async (captureContent) => {
    const server = await startCheckedServer();
    try {
      server.enqueue(...faults);
      const result = await runAgent('hello', {
        model: 'claude-test',
        client: { apiKey: key, baseURL: server.url },
        tools: [],
        cwd: dir,
        maxRetries: 1,
        retryBaseMs: 1,
        retryMaxMs: 2,
        tracing: { tracer: provider.getTracer('test'), conventions: { latest: true, captureContent } },
      });
      expect(result.state).toBe('failed');
      expect(server.requests.map(echoed)).toEqual([key, key]);
      const spans = exporter.getFinishedSpans();
      expect(spans.filter((s) => s.name === 'chat claude-test')).toHaveLength(2);
      const all = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events, s.status, s.links]));
      expect(all).not.toContain(key);
      expect(all).toContain('Overloaded for x-api-key: [redacted ANTHROPIC_API_KEY]');
      expect(all).toContain('[redacted ANTHROPIC_API_KEY]'); // the HTML page, as the run's error
      expect(JSON.stringify(result.context.error)).not.toContain(key);
    } finally {
      await server.close();
    }
  });
});

describe("a command's environment", () => {
  it('holds TRACEPARENT naming its execute_tool span, so what it runs can join the trace', async () => {
    const bash = createBashTool({ cwd: dir });
    const { spans, result } = await traced([reply.toolUse([{ id: 't1', name: 'bash', input: { command: 'echo "tp=$TRACEPARENT"' } }]), reply.text('done')], {
      tools: [bash],
    });
    const tool = spans.find((s) => s.name === 'execute_tool bash');
    const { traceId, spanId } = (tool as ReadableSpan).spanContext();
    const output = JSON.stringify(result.context.messages[2]);
    expect(output).toContain(`tp=00-${traceId}-${spanId}-01`);
  });
});
