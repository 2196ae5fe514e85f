/**
 * `runAgent({ mcpServers })` (run/mcpRun.ts): servers that live as long as one run. The real server-everything from
 * npm over stdio, and the Agent SDK's own in-process server (`createSdkMcpServer` of @anthropic-ai/claude-agent-sdk)
 * passed as the SDK's `mcpServers` takes it; a server that fails, a bad configuration, an abort while servers start.
 */
import { createSdkMcpServer, tool } from '@anthropic-ai/claude-agent-sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { MessageParam } from '../../../src/core/messages.js';
import { runAgent } from '../../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import { McpConfigError } from '../../../src/tools/mcp/config.js';
import { everything, processesMarked, waitFor } from '../../support/mcp.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-mcp-run-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The tool_result blocks' texts of `messages`, by tool_use id. */
function results(messages: readonly MessageParam[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) if (block.type === 'tool_result') found[block.tool_use_id] = JSON.stringify(block.content);
  }
  return found;
}

describe('runAgent({ mcpServers })', () => {
  it("knows the servers' env values and the OTLP headers as secrets: the model and the transcript hold them redacted", async () => {
    const value = `mcpEnvValue-${process.pid}-run`;
    const header = `otlpHdrValue-${process.pid}-run`;
    const home = join(dir, `home-${Date.now()}`);
    process.env.OTEL_EXPORTER_OTLP_HEADERS = `x-api-key=${header}`;
    try {
      const echo = { name: 'say', description: 'Says', inputSchema: { type: 'object' as const, properties: {} }, run: async () => ({ content: `the header: ${header}`, isError: false }) };
      const model = scriptedModel([
        reply.toolUse([{ id: 'e', name: 'mcp__every__get-env', input: {} }, { id: 's', name: 'say', input: {} }]),
        reply.text(`echo ${value} ${header}`),
      ]);
      const servers = { every: everything(`run-secret-${process.pid}`, { SERVICE_CONFIG: value }) };
      const result = await runAgent('go', { model: 'claude-test', modelCall: model.call, tools: [echo], mcpServers: servers, cwd: dir, session: { home } });
      expect(results(result.context.messages).e).toContain('[redacted mcp server every]');
      expect(results(result.context.messages).s).toContain('[redacted OTEL_EXPORTER_OTLP_HEADERS]');
      const { readdirSync, readFileSync } = await import('node:fs');
      const transcript = readdirSync(home, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => readFileSync(join(e.parentPath, e.name), 'utf8')).join('\n');
      for (const [where, text] of [['the model', JSON.stringify(model.requests)], ['the transcript', transcript]]) {
        expect(text, where).not.toContain(value);
        expect(text, where).not.toContain(header);
      }
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
    }
  }, 60_000);

  it('starts a stdio server from npm for the run, gives the model its tools and stops it when the run ends', async () => {
    const marker = `run-${process.pid}-${Date.now()}`;
    let during: number[] = [];
    const model = scriptedModel([
      reply.toolUse([{ id: 'e', name: 'mcp__every__echo', input: { message: 'from the run' } }]),
      () => {
        during = processesMarked(marker);
        return reply.text('done');
      },
    ]);
    const result = await runAgent('go', { model: 'claude-test', modelCall: model.call, tools: [], mcpServers: { every: everything(marker) }, cwd: dir });
    expect(result.state).toBe('done');
    expect(result.mcpServers).toEqual([{ name: 'every', status: 'connected' }]);
    expect(model.requests[0]?.tools?.map((t) => t.name)).toContain('mcp__every__echo');
    expect(results(result.context.messages).e).toContain('Echo: from the run');
    expect(during.length).toBeGreaterThan(0);
    await waitFor(() => processesMarked(marker).length === 0);
  }, 60_000);

  it("connects the Agent SDK's in-process server (createSdkMcpServer) as given, run after run", async () => {
    const calls: number[] = [];
    const calc = createSdkMcpServer({
      name: 'calc',
      version: '1.0.0',
      tools: [
        tool('add', 'Adds two numbers.', { a: z.number(), b: z.number() }, async ({ a, b }) => {
          calls.push(a + b);
          return { content: [{ type: 'text', text: `sum ${a + b}` }] };
        }),
      ],
    });
    for (const [a, b] of [[2, 3], [40, 2]] as const) {
      const model = scriptedModel([reply.toolUse([{ id: 'add', name: 'mcp__calc__add', input: { a, b } }]), reply.text('done')]);
      const result = await runAgent('add', { model: 'claude-test', modelCall: model.call, tools: [], mcpServers: { calc }, cwd: dir });
      expect(result.mcpServers).toEqual([{ name: 'calc', status: 'connected' }]);
      expect(results(result.context.messages).add).toContain(`sum ${a + b}`);
    }
    expect(calls).toEqual([5, 42]);
  }, 60_000);

  it('leaves out a server that fails to start, says why, and the run goes on with the others', async () => {
    const marker = `fail-${process.pid}-${Date.now()}`;
    const model = scriptedModel([reply.toolUse([{ id: 'e', name: 'mcp__every__echo', input: { message: 'still here' } }]), reply.text('done')]);
    const result = await runAgent('go', {
      model: 'claude-test',
      modelCall: model.call,
      tools: [],
      mcpServers: { gone: { command: join(dir, 'no-such-server') }, every: everything(marker) },
      cwd: dir,
    });
    expect(result.state).toBe('done');
    expect(result.mcpServers?.map(({ name, status }) => `${name} ${status}`)).toEqual(['gone failed', 'every connected']);
    expect(result.mcpServers?.[0]?.error).toMatch(/ENOENT|no-such-server|closed/i);
    const names = model.requests[0]?.tools?.map((t) => t.name) ?? [];
    expect(names.some((name) => name.startsWith('mcp__gone__'))).toBe(false);
    expect(results(result.context.messages).e).toContain('Echo: still here');
    await waitFor(() => processesMarked(marker).length === 0);
  }, 60_000);

  it('refuses a bad configuration with McpConfigError before the model is asked', async () => {
    const model = scriptedModel([reply.text('never')]);
    const bad = { ftp: { type: 'ftp', url: 'ftp://x' } } as unknown as Parameters<typeof runAgent>[1]['mcpServers'];
    await expect(runAgent('go', { model: 'claude-test', modelCall: model.call, tools: [], mcpServers: bad, cwd: dir })).rejects.toThrow(McpConfigError);
    expect(model.requests).toHaveLength(0);
  });

  it('ends as aborted when aborted while a server has not answered yet, and stops that server', async () => {
    const marker = `mute-${process.pid}-${Date.now()}`;
    // A process that never answers `initialize` (the start-up bound, MCP_TIMEOUT, is 30 s: longer than this test's).
    const mute = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: { AGENTLOOP_TEST_MARKER: marker } };
    const model = scriptedModel([reply.text('never')]);
    const controller = new AbortController();
    const run = runAgent('go', { model: 'claude-test', modelCall: model.call, tools: [], mcpServers: { mute }, cwd: dir, signal: controller.signal });
    await waitFor(() => processesMarked(marker).length > 0);
    controller.abort();
    const result = await run;
    expect(result.state).toBe('aborted');
    expect(result.mcpServers).toEqual([{ name: 'mute', status: 'pending' }]);
    await waitFor(() => processesMarked(marker).length === 0);
  }, 20_000);
});
