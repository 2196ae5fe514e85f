/**
 * The CLI's traces, end to end: the CLI as a process against the local Messages API server, the real OpenTelemetry
 * exporters sending OTLP over HTTP (protobuf and JSON) to a receiver on 127.0.0.1 (test/support/otlpReceiver.ts).
 */
import { createServer as createHttpServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashUse } from '../support/agentServer.js';
import { FLUSH_MS } from '../../src/cli/setup/telemetry.js';
import { runCli, startCli } from '../support/cli.js';
import { probe } from '../support/mcp.js';
import { distFilesLoaded } from '../support/moduleLog.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';
import { closedPort } from '../support/closedPort.js';

let project: CliProject;
let receiver: OtlpReceiver;
cliProjectPerTest('otel', (p) => (project = p), { noViolations: true });
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);
const twoTurns = () => project.server.enqueue({ content: [bashUse('t1', 'ls')], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'two files' }], stop_reason: 'end_turn' });
const traced = (extra: Record<string, string> = {}) => ({ ...project.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...extra });

/** An HTTP server on 127.0.0.1 that reads each request and never answers it (a collector that hangs). */
async function startSilentCollector() {
  let count = 0;
  const server = createHttpServer((req) => {
    count += 1;
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('agentloop -p with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it.each([
    ['http/protobuf', 'application/x-protobuf'],
    ['http/json', 'application/json'],
  ])('sends the run as one trace (%s): invoke_agent > chat, chat, execute_tool bash, with the GenAI attributes', async (protocol, contentType) => {
    twoTurns();
    const run = await runCli(['-p', 'list the files', '--output-format', 'json'], { cwd: project.dir, env: traced({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol }) });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { session_id: string };
    expect(receiver.contentTypes.every((t) => t.startsWith(contentType))).toBe(true);
    const spans = receiver.spans;
    const [agent] = byName(spans, 'invoke_agent agentloop');
    const chats = byName(spans, 'chat claude-test');
    const [tool] = byName(spans, 'execute_tool bash');
    expect([agent?.kind, chats.map((c) => c.kind), tool?.kind]).toEqual(['INTERNAL', ['CLIENT', 'CLIENT'], 'INTERNAL']);
    expect(spans).toHaveLength(4);
    for (const child of [...chats, tool]) {
      expect(child?.traceId).toBe(agent?.traceId);
      expect(child?.parentSpanId).toBe(agent?.spanId);
    }
    expect(agent?.parentSpanId).toBe('');
    expect(agent?.resource['service.name']).toBe('agentloop');
    expect(agent?.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': result.session_id, 'agentloop.exit_reason': 'completed' });
    expect(chats[0]?.attributes).toMatchObject({ 'gen_ai.system': 'anthropic', 'gen_ai.request.model': 'claude-test', 'server.address': '127.0.0.1', 'gen_ai.response.finish_reasons': ['tool_use'] });
    expect(chats[1]?.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(chats[0]?.attributes['gen_ai.response.id']).toMatch(/^msg_/);
    expect(tool?.attributes).toMatchObject({ 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.id': 't1' });
    // No content without the opt-in.
    const names = spans.flatMap((s) => Object.keys(s.attributes));
    expect(names.filter((n) => /messages|instructions|arguments|result/.test(n))).toEqual([]);
  });

  it.each([
    ['OTEL_SERVICE_NAME alone', { OTEL_SERVICE_NAME: 'named-agent' }, { 'service.name': 'named-agent' }],
    [
      'OTEL_RESOURCE_ATTRIBUTES alone',
      { OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes,deployment.environment.name=ci,team.name=a%20b%2Cc,service.version=9.9.9' },
      { 'service.name': 'from-attributes', 'deployment.environment.name': 'ci', 'team.name': 'a b,c', 'service.version': '9.9.9' },
    ],
    [
      'both: OTEL_SERVICE_NAME wins for service.name, as the spec says',
      { OTEL_SERVICE_NAME: 'named-agent', OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes,deployment.environment.name=ci' },
      { 'service.name': 'named-agent', 'deployment.environment.name': 'ci' },
    ],
  ])('the resource follows %s', async (_case, variables: Record<string, string>, resource: Record<string, string>) => {
    twoTurns();
    const run = await runCli(['-p', 'list the files'], { cwd: project.dir, env: traced(variables) });
    expect(run.code, run.stderr).toBe(0);
    expect(receiver.spans).toHaveLength(4);
    const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    for (const span of receiver.spans) expect(span.resource).toMatchObject({ 'service.version': version, ...resource });
  });

  it("joins the caller's trace from TRACEPARENT, and hands the tool's span to the command", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    project.server.enqueue({ content: [bashUse('t1', 'echo "tp=$TRACEPARENT"')], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' });
    // The command reads a variable: not one -p runs unasked (docs/cli.md#permissions), so the test allows it.
    const run = await runCli(['-p', 'go', '--allowedTools', 'Bash(echo:*)'], { cwd: project.dir, env: traced({ TRACEPARENT: `00-${traceId}-${parent}-01` }) });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [agent] = byName(receiver.spans, 'invoke_agent agentloop');
    const [tool] = byName(receiver.spans, 'execute_tool bash');
    expect(receiver.spans.every((s) => s.traceId === traceId)).toBe(true);
    expect(agent?.parentSpanId).toBe(parent);
    const sent = JSON.stringify(project.server.requests[1]?.body?.messages);
    expect(sent).toContain(`tp=00-${traceId}-${tool?.spanId}-01`);
  });

  it("an MCP server's tool: execute_tool with its name and the MCP attributes; the server gets the span's trace context", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const config = JSON.stringify({ mcpServers: { probe: probe(`otel-${process.pid}`) } });
    project.server.enqueue({ content: [{ type: 'tool_use', id: 't1', name: 'mcp__probe__whoami', input: {} }], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' });
    const run = await runCli(['-p', '--mcp-config', config, 'who', '--allowedTools', 'mcp__probe'], { cwd: project.dir, env: traced({ TRACEPARENT: `00-${traceId}-00f067aa0ba902b7-01` }) });
    expect(run.code, run.stderr).toBe(0);
    const [agent] = byName(receiver.spans, 'invoke_agent agentloop');
    const [tool] = byName(receiver.spans, 'execute_tool mcp__probe__whoami');
    expect(tool?.parentSpanId).toBe(agent?.spanId);
    expect(tool?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'mcp__probe__whoami',
      'gen_ai.tool.call.id': 't1',
      'mcp.method.name': 'tools/call',
      'agentloop.mcp.server': 'probe',
      'agentloop.mcp.tool': 'whoami',
    });
    const sent = JSON.stringify(project.server.requests[1]?.body?.messages);
    expect(sent).toContain(`traceparent 00-${traceId}-${tool?.spanId}-01`);
  }, 60_000);

  it('a 529 that is retried: the failed call is a span in error, with the wait', async () => {
    project.server.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }, { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' });
    const run = await runCli(['-p', 'hi'], { cwd: project.dir, env: traced() });
    expect(run.code).toBe(0);
    const chats = byName(receiver.spans, 'chat claude-test');
    expect(chats).toHaveLength(2);
    expect(chats[0]?.status.code).toBe('ERROR');
    expect(chats[0]?.attributes).toMatchObject({ 'error.type': 'overloaded_error' });
    expect(chats[0]?.attributes['agentloop.retry.delay_ms']).toBeGreaterThanOrEqual(0);
    expect(chats[1]?.attributes['agentloop.retry.attempt']).toBe(1);
  });

  it('content with the opt-in, never the API key', async () => {
    const key = project.env.ANTHROPIC_API_KEY as string;
    project.server.enqueue({ content: [bashUse('t1', `echo ${key}`)], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' });
    const env = traced({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true', OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental' });
    const run = await runCli(['-p', 'show the key'], { cwd: project.dir, env });
    expect(run.code).toBe(0);
    const [first] = byName(receiver.spans, 'chat claude-test');
    expect(first?.attributes['gen_ai.provider.name']).toBe('anthropic');
    expect(String(first?.attributes['gen_ai.input.messages'])).toContain('show the key');
    expect(String(byName(receiver.spans, 'execute_tool bash')[0]?.attributes['gen_ai.tool.call.arguments'])).toContain('[redacted ANTHROPIC_API_KEY]');
    expect(JSON.stringify(receiver.spans.map((s) => [s.attributes, s.events]))).not.toContain(key);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s during a tool: the spans are still sent, the run span says aborted', async (signal, code) => {
    project.server.enqueue({ content: [bashUse('t1', 'sleep 30')], stop_reason: 'tool_use' });
    const cli = startCli(['-p', 'wait', '--output-format', 'stream-json', '--verbose', '--include-loop-events'], { cwd: project.dir, env: traced() });
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (cli.output().stdout.includes('"tool_start"')) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    cli.child.kill(signal);
    const run = await cli.done;
    expect(run.code).toBe(code);
    const [agent] = byName(receiver.spans, 'invoke_agent agentloop');
    expect(agent?.attributes).toMatchObject({ 'error.type': 'aborted', 'agentloop.exit_reason': 'aborted' });
    expect(byName(receiver.spans, 'execute_tool bash')).toHaveLength(1);
  });

  it('a run that fails (the API refuses the key): exit 1, and its spans are sent, in error', async () => {
    project.server.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const run = await runCli(['-p', 'hi'], { cwd: project.dir, env: traced() });
    expect(run.code).toBe(1);
    const [agent] = byName(receiver.spans, 'invoke_agent agentloop');
    const [chat] = byName(receiver.spans, 'chat claude-test');
    expect([agent?.status.code, agent?.attributes['error.type']]).toEqual(['ERROR', 'authentication_error']);
    expect([chat?.status.code, chat?.attributes['error.type'], chat?.parentSpanId]).toEqual(['ERROR', 'authentication_error', agent?.spanId]);
  });

  it('a collector that takes the connection and never answers: the CLI waits FLUSH_MS at most, says so once, exits as without traces', async () => {
    const silent = await startSilentCollector();
    try {
      twoTurns();
      const run = await runCli(['-p', 'list the files', '--output-format', 'json'], { cwd: project.dir, env: traced({ OTEL_EXPORTER_OTLP_ENDPOINT: silent.url }) });
      expect(silent.requests()).toBeGreaterThan(0);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', result: 'two files' });
      const warnings = run.stderr.split('\n').filter((l) => l.includes('trace could not be sent'));
      expect(warnings).toEqual([`agentloop: the trace could not be sent to ${silent.url}/: no answer within ${FLUSH_MS} ms`]);
    } finally {
      await silent.close();
    }
  });

  it('a collector that is down: one warning, the run and its output as without traces', async () => {
    twoTurns();
    const run = await runCli(['-p', 'list the files', '--output-format', 'json'], { cwd: project.dir, env: traced({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await closedPort()}` }) });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', result: 'two files' });
    const warnings = run.stderr.split('\n').filter((l) => l.includes('trace could not be sent'));
    expect(warnings).toHaveLength(1);
  });

  it('OTEL_TRACES_EXPORTER=console writes the spans to stderr; stdout is only the result', async () => {
    twoTurns();
    const run = await runCli(['-p', 'list the files', '--output-format', 'json'], { cwd: project.dir, env: { ...project.env, OTEL_TRACES_EXPORTER: 'console' } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success' });
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { name: string });
    expect(lines.map((l) => l.name).sort()).toEqual(['chat claude-test', 'chat claude-test', 'execute_tool bash', 'invoke_agent agentloop']);
  });

  it('grpc is refused in one warning, and the run goes on without traces', async () => {
    twoTurns();
    const run = await runCli(['-p', 'list the files'], { cwd: project.dir, env: traced({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }) });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/no traces: the OTLP protocol grpc is not supported/);
    expect(receiver.spans).toEqual([]);
  });
});

describe('--input-format stream-json', () => {
  it('one invoke_agent span per question, in one conversation', async () => {
    project.server.enqueue({ content: [{ type: 'text', text: 'one' }], stop_reason: 'end_turn' }, { content: [{ type: 'text', text: 'two' }], stop_reason: 'end_turn' });
    const user = (text: string) => `${JSON.stringify({ type: 'user', message: { role: 'user', content: text } })}\n`;
    const run = await runCli(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json'], { cwd: project.dir, env: traced(), input: user('first') + user('second') });
    expect(run.code).toBe(0);
    const agents = byName(receiver.spans, 'invoke_agent agentloop');
    expect(agents).toHaveLength(2);
    expect(new Set(agents.map((a) => a.attributes['gen_ai.conversation.id'])).size).toBe(1);
    expect(new Set(agents.map((a) => a.traceId)).size).toBe(2);
  });
});

/** The files of dist/ a CLI run loaded that hold the OpenTelemetry SDK's own code (a variable it reads). */
async function sdkFilesLoaded(env: NodeJS.ProcessEnv): Promise<string[]> {
  const files = await distFilesLoaded({ cwd: project.dir, env, args: ['-p', 'list the files'] });
  return files.filter((url) => readFileSync(new URL(url), 'utf8').includes('OTEL_BSP_MAX_QUEUE_SIZE'));
}

describe('the OpenTelemetry SDK loads only for a traced run', () => {
  it('without the OTEL_* variables, a run loads nothing of it', async () => {
    twoTurns();
    expect(await sdkFilesLoaded(project.env)).toEqual([]);
  });

  it('with them, it does (what the check above looks for is there to find)', async () => {
    twoTurns();
    expect(await sdkFilesLoaded({ ...project.env, OTEL_TRACES_EXPORTER: 'console' })).toHaveLength(1);
  });
});
