/**
 * Records what Claude Code 2.1.197 gives the model for an MCP tool's big result (test/support/mcpGarbageServer.ts's
 * BIG: 2 MB of text; text, images and text of 121,000 characters) into ./claudeMcpOutput.json, the reference
 * mcpOutputCap.test.ts holds agentloop to: the next request's tool_result, each text block as its length and two ends.
 * Claude Code runs as a process offline against the local Messages API server, behind a front that answers the
 * API's token counter (`/v1/messages/count_tokens`: a token per 4 bytes of the request), which Claude Code asks once
 * its own estimate passes half of MAX_MCP_OUTPUT_TOKENS. To re-record:
 *
 *   CLAUDE_CODE=/work/main/bench/peers/node_modules/@anthropic-ai/claude-code/bin/claude.exe npx tsx test/tools/mcp/recordMcpOutput.ts
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { garbage } from '../../support/mcp.js';
import { startMessagesServer } from '../../support/messagesServer.js';

export const FIXTURE = new URL('./claudeMcpOutput.json', import.meta.url);

export interface McpOutputCase {
  name: string;
  tool: 'big_text' | 'big_mixed';
  env: Record<string, string>;
}

export const CASES: McpOutputCase[] = [
  { name: 'text, default bound, no files', tool: 'big_text', env: { ENABLE_MCP_LARGE_OUTPUT_FILES: '0' } },
  { name: 'text, MAX_MCP_OUTPUT_TOKENS=1000, no files', tool: 'big_text', env: { MAX_MCP_OUTPUT_TOKENS: '1000', ENABLE_MCP_LARGE_OUTPUT_FILES: '0' } },
  { name: 'text and images, default bound', tool: 'big_mixed', env: {} },
  { name: 'text and images, MAX_MCP_OUTPUT_TOKENS=20000', tool: 'big_mixed', env: { MAX_MCP_OUTPUT_TOKENS: '20000' } },
  { name: 'text and images, MAX_MCP_OUTPUT_TOKENS=40000', tool: 'big_mixed', env: { MAX_MCP_OUTPUT_TOKENS: '40000' } },
  { name: 'text, default bound (saved to a file)', tool: 'big_text', env: {} },
];

/** A block as the fixture keeps it: a text's length and ends, an image's type. */
export type BlockShape = { type: 'text'; length: number; head: string; tail: string } | { type: string };

export function shapeOf(content: unknown, home = '\0'): BlockShape[] {
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : (content as { type: string; text?: string }[]);
  return blocks.map((b) => (b.type === 'text' ? { type: 'text', length: b.text!.length, head: b.text!.slice(0, 40).split(home).join('$HOME'), tail: b.text!.slice(-400).split(home).join('$HOME') } : { type: b.type }));
}

/** A front of `target` that answers the token counter itself (a token per 4 bytes), and passes the rest on. */
async function counterFront(target: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url?.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: Math.round(body.length / 4) }));
        return;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'content-length' && k !== 'host')) as Record<string, string>;
      void fetch(target + (req.url ?? '/'), { method: req.method, headers, body: req.method === 'POST' ? body : undefined }).then(async (r) => {
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await r.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function record(c: McpOutputCase, executable: string): Promise<BlockShape[]> {
  const api = await startMessagesServer();
  const front = await counterFront(api.url);
  api.enqueue({ content: [{ type: 'tool_use', id: 'toolu_big', name: `mcp__junk__${c.tool}`, input: {} }], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' });
  const home = mkdtempSync(join(tmpdir(), 'record-mcp-'));
  const config = JSON.stringify({ mcpServers: { junk: garbage('record-mcp-output') } });
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_API_KEY: 'sk-ant-test-record', ANTHROPIC_BASE_URL: front.url, DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', ...c.env };
  try {
    // Its own session (setsid): Claude Code signals its process group as it ends.
    const child = spawn(executable, ['-p', 'go', '--mcp-config', config, '--allowedTools', 'mcp__junk', '--output-format', 'json'], { cwd: home, env, stdio: 'ignore', detached: true });
    await new Promise((resolve) => child.on('close', resolve));
    const request = api.requests.map((r) => r.body as { messages?: { content: unknown }[] }).filter((b) => JSON.stringify(b.messages?.at(-1) ?? '').includes('toolu_big')).at(-1);
    const last = request?.messages?.at(-1)?.content as { type: string; content?: unknown }[];
    return shapeOf(last.find((b) => b.type === 'tool_result')?.content, home);
  } finally {
    front.server.close();
    await api.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const executable = process.env.CLAUDE_CODE;
  if (!executable) throw new Error('set CLAUDE_CODE to the claude binary (see the comment at the top)');
  const version = spawnSync(executable, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const cases: Record<string, BlockShape[]> = {};
  for (const c of CASES) {
    cases[c.name] = await record(c, executable);
    process.stdout.write(`${c.name}: ${JSON.stringify(cases[c.name]).slice(0, 300)}\n`);
  }
  writeFileSync(FIXTURE, `${JSON.stringify({ recordedWith: version, command: 'CLAUDE_CODE=... npx tsx test/tools/mcp/recordMcpOutput.ts', cases }, null, 1)}\n`);
}

if (process.argv[1]?.endsWith('recordMcpOutput.ts')) await main();
