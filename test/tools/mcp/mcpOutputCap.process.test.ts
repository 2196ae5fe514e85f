/**
 * An MCP tool's result over `MAX_MCP_OUTPUT_TOKENS` (default 25,000 tokens) is cut as Claude Code 2.1.197 cuts it,
 * held to its recording (./claudeMcpOutput.json, ./recordMcpOutput.ts): the CLI with a stdio server (2 MB of text;
 * text, images and text), the env honoured; the library's runAgent with a streamable HTTP server, an HTTP+SSE one
 * (server-everything's echo) and the Agent SDK's in-process server. What Claude Code saves to a file instead (a text-only result at its default) is cut here
 * (docs/mcp.md says why): that recording is kept beside, not compared.
 */
import { createSdkMcpServer, tool } from '@anthropic-ai/claude-agent-sdk';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { MessageParam } from '../../../src/core/messages.js';
import { runAgent } from '../../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import { capMcpOutput, estimatedTokens, maxMcpOutputTokens, truncationNotice } from '../../../src/tools/mcp/outputCap.js';
import { lastToolResults } from '../../support/agentServer.js';
import { startCli } from '../../support/cli.js';
import { garbage } from '../../support/mcp.js';
import { startProbeHttp } from '../../support/mcpProbeServer.js';
import { startEverythingSse } from '../../support/mcpSseServer.js';
import type { RequestBody } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';
import { CASES, FIXTURE, shapeOf, type BlockShape } from './recordMcpOutput.js';

const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { cases: Record<string, BlockShape[]> };
/** The cases where Claude Code gave the model the result, cut or whole (in the others it saved it to a file and gave the path). */
const SAVED = /^(<persisted-output>|Error: result \()/;
const CUT = CASES.filter((c) => !SAVED.test((recorded.cases[c.name]?.[0] as { head?: string }).head ?? ''));

describe('MAX_MCP_OUTPUT_TOKENS as Claude Code reads it', () => {
  it('a positive integer (parseInt), else 25,000', () => {
    expect(['1000', '1000tokens', ' 7', '', '0', '-5', 'x', undefined].map((v) => maxMcpOutputTokens({ MAX_MCP_OUTPUT_TOKENS: v }))).toEqual([1000, 1000, 7, 25000, 25000, 25000, 25000, 25000]);
  });

  it('within the bound a result is left as it is; an image counts 1600 tokens', () => {
    const output = { isError: false, content: 'x'.repeat(4000) };
    expect(capMcpOutput(output, 1000)).toBe(output);
    const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'AAAA' } };
    expect(estimatedTokens({ isError: false, content: '', blocks: [image, { type: 'text', text: 'y'.repeat(400) }] })).toBe(1700);
  });

  it('a cut never leaves half of a surrogate pair', () => {
    const cut = capMcpOutput({ isError: false, content: `${'a'.repeat(3999)}😀😀` }, 1000);
    expect(cut.blocks?.[0]).toEqual({ type: 'text', text: 'a'.repeat(3999) });
    expect(cut.blocks?.[1]).toEqual({ type: 'text', text: truncationNotice(1000) });
  });
});

let project: CliProject;
cliProjectPerTest('mcp-output-cap', (p) => (project = p), { noViolations: true });

describe('the CLI cuts a stdio server’s big result as Claude Code does', () => {
  for (const c of CUT) {
    it(`${c.name}: the tool_result the model gets matches Claude Code's`, async () => {
      project.server.enqueue({ content: [{ type: 'tool_use', id: 'toolu_big', name: `mcp__junk__${c.tool}`, input: {} }], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' });
      const config = JSON.stringify({ mcpServers: { junk: garbage(`cap-${process.pid}`) } });
      const run = await startCli(['-p', 'go', '--mcp-config', config, '--allowedTools', 'mcp__junk'], { cwd: project.dir, env: { ...project.env, ...c.env } }).done;
      expect(run.code, run.stderr).toBe(0);
      const result = lastToolResults(project.server.requests[1]?.body as RequestBody)[0];
      expect(shapeOf(result?.content)).toEqual(recorded.cases[c.name]);
    }, 60_000);
  }
});

describe('every transport: the library with a streamable HTTP server, an HTTP+SSE server and the Agent SDK’s in-process server', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentloop-mcp-cap-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The texts of the tool_result of `id` in `messages`. */
  function resultTexts(messages: readonly MessageParam[], id: string): string[] {
    for (const m of messages) {
      if (typeof m.content === 'string') continue;
      for (const b of m.content) if (b.type === 'tool_result' && b.tool_use_id === id) return typeof b.content === 'string' ? [b.content] : (b.content ?? []).map((x) => (x.type === 'text' ? x.text : `[${x.type}]`));
    }
    return [];
  }

  it('a 200,000-character result of each is cut to MAX_MCP_OUTPUT_TOKENS=2000 (8000 characters) and said so', async () => {
    const http = await startProbeHttp();
    const sse = await startEverythingSse();
    const inProcess = createSdkMcpServer({ name: 'inproc', tools: [tool('big_text', 'Answers much text.', { n: z.number().optional() }, async () => ({ content: [{ type: 'text', text: `START${'q'.repeat(200_000)}END` }] }))] });
    process.env.MAX_MCP_OUTPUT_TOKENS = '2000';
    try {
      const model = scriptedModel([
        reply.toolUse([{ id: 'h', name: 'mcp__web__big_text', input: {} }, { id: 'i', name: 'mcp__inproc__big_text', input: {} }, { id: 's', name: 'mcp__every__echo', input: { message: `START${'s'.repeat(200_000)}END` } }]),
        reply.text('done'),
      ]);
      const result = await runAgent('go', { model: 'claude-test', modelCall: model.call, tools: [], cwd: dir, mcpServers: { web: { type: 'http', url: http.url }, inproc: inProcess, every: { type: 'sse', url: sse.url } } });
      for (const [id, letter] of [['h', 'p'], ['i', 'q']] as const) {
        expect(resultTexts(result.context.messages, id)).toEqual([`START${letter.repeat(8000 - 5)}`, truncationNotice(2000)]);
      }
      // server-everything's echo answers `Echo: ` and the message.
      expect(resultTexts(result.context.messages, 's')).toEqual([`Echo: START${'s'.repeat(8000 - 11)}`, truncationNotice(2000)]);
    } finally {
      delete process.env.MAX_MCP_OUTPUT_TOKENS;
      await http.close();
      await sse.kill();
    }
  }, 60_000);
});
