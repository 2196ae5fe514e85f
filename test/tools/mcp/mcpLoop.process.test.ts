/**
 * MCP tools inside the loop (runAgent with a scripted model, the real server-everything): read-only tools
 * (readOnlyHint) run side by side, the others one at a time; an MCP call is an execute_tool span named after the
 * mcp__SERVER__TOOL name.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/core/events.js';
import { runAgent } from '../../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import { defineTool } from '../../../src/tools/define.js';
import { s } from '../../../src/tools/schema.js';
import { startMcpServers, type McpServers } from '../../../src/tools/mcp/servers.js';
import { everything } from '../../support/mcp.js';

let servers: McpServers;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-mcp-loop-'));
  servers = startMcpServers({ every: everything(`loop-${process.pid}`) }, { cwd: dir });
  await servers.ready();
}, 60_000);
afterAll(async () => {
  await servers.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(calls: { id: string; name: string; input: unknown }[], options: Partial<Parameters<typeof runAgent>[1]> = {}) {
  const events: RunEvent[] = [];
  const result = await runAgent('go', {
    model: 'claude-test',
    modelCall: scriptedModel([reply.toolUse(calls), reply.text('done')]).call,
    tools: servers.tools(),
    cwd: dir,
    onEvent: (event) => events.push(event),
    ...options,
  });
  const order = events.flatMap((e) => (e.type === 'tool_start' ? [`start ${e.block.id}`] : e.type === 'tool_result' ? [`end ${e.block.id}`] : []));
  return { result, order };
}

describe('MCP tools in the loop', () => {
  it('runs read-only tools side by side: both start before either ends', async () => {
    const slow = { duration: 1, steps: 1 };
    const { result, order } = await run([
      { id: 'a', name: 'mcp__every__trigger-long-running-operation', input: slow },
      { id: 'b', name: 'mcp__every__trigger-long-running-operation', input: slow },
    ]);
    expect(result.state).toBe('done');
    expect(order.slice(0, 2).sort()).toEqual(['start a', 'start b']);
  }, 60_000);

  it('runs a tool that is not read-only alone: each ends before the next starts', async () => {
    const { result, order } = await run([
      { id: 'a', name: 'mcp__every__toggle-simulated-logging', input: {} },
      { id: 'b', name: 'mcp__every__toggle-simulated-logging', input: {} },
    ]);
    expect(result.state).toBe('done');
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b']);
  }, 60_000);

  it('traces an MCP call as an execute_tool span named after mcp__SERVER__TOOL', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    try {
      await run([{ id: 't1', name: 'mcp__every__echo', input: { message: 'traced' } }], {
        tracing: { tracer: provider.getTracer('test'), conventions: { latest: true, captureContent: false } },
      });
      const [span] = exporter.getFinishedSpans().filter((s) => s.name.startsWith('execute_tool'));
      expect(span?.name).toBe('execute_tool mcp__every__echo');
      expect(span?.attributes).toMatchObject({ 'gen_ai.tool.name': 'mcp__every__echo', 'gen_ai.tool.call.id': 't1' });
    } finally {
      await provider.shutdown();
    }
  }, 60_000);

  it('gives addTools beside the tools given (not only beside the default bash tool)', async () => {
    const own = defineTool({ name: 'own', description: 'A tool of the caller.', input: s.object({}), run: async () => ({ content: 'own ran', isError: false }) });
    const model = scriptedModel([reply.toolUse([{ id: 'o', name: 'own', input: {} }, { id: 'e', name: 'mcp__every__echo', input: { message: 'beside' } }]), reply.text('done')]);
    const result = await runAgent('go', { model: 'claude-test', modelCall: model.call, tools: [own], addTools: servers.tools(), cwd: dir });
    expect(result.state).toBe('done');
    const names = (model.requests[0]?.tools ?? []).map((tool) => tool.name);
    expect(names).toContain('own');
    expect(names).toContain('mcp__every__echo');
    const results = result.context.messages[2]?.content;
    expect(JSON.stringify(results)).toContain('own ran');
    expect(JSON.stringify(results)).toContain('Echo: beside');
  }, 60_000);
});
