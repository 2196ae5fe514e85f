/**
 * `"type": "sse"` (the older HTTP+SSE transport) with the CLI as a process against the local Messages API server and
 * the real `@modelcontextprotocol/server-everything` from npm served over the MCP SDK's SSEServerTransport on
 * 127.0.0.1 (test/support/mcpSseServer.ts, a process of its own): the init line lists the server connected and the
 * model is offered its tools; a call is answered, a refused call is an is_error result; a server killed mid-call gives
 * that call an is_error result, the next call too, and the run goes on to its end with every history valid (the
 * requests, the transcript, the stream-json lines: test/support/midCall.ts).
 */
import { describe, expect, it } from 'vitest';
import { answerFromResults, lastToolResults, resultText } from '../support/agentServer.js';
import { runCli } from '../support/cli.js';
import { startEverythingSse, type SseServer } from '../support/mcpSseServer.js';
import type { RequestBody } from '../support/messagesServer.js';
import { runKilledMidCall } from '../support/midCall.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('mcp-sse', (p) => (project = p), { noViolations: true });

const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id, name, input });
const results = (request: number) => lastToolResults(project.server.requests[request]?.body as RequestBody);
const sseConfig = (server: SseServer) => JSON.stringify({ mcpServers: { web: { type: 'sse', url: server.url } } });
const lines = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

async function withServer(test: (server: SseServer) => Promise<void>): Promise<void> {
  const server = await startEverythingSse();
  try {
    await test(server);
  } finally {
    await server.kill();
  }
}

describe('an MCP server over SSE', () => {
  it('lists its tools, answers a call and gives a refused call an is_error result', () =>
    withServer(async (server) => {
      project.server.enqueue(
        { content: [use('toolu_1', 'mcp__web__echo', { message: 'over sse' }), use('toolu_2', 'mcp__web__get-sum', { a: 'x' })], stop_reason: 'tool_use' },
        answerFromResults,
      );
      // A server's tools run in -p only when allowed, as with Claude Code's -p (docs/cli.md#permissions).
      const run = await runCli(['-p', '--mcp-config', sseConfig(server), '--output-format', 'stream-json', '--verbose', 'go', '--allowedTools', 'mcp__web'], { cwd: project.dir, env: project.env });
      expect(run.code, run.stderr).toBe(0);
      const [init] = lines(run.stdout);
      expect(init).toMatchObject({ type: 'system', subtype: 'init', mcp_servers: [{ name: 'web', status: 'connected' }] });
      expect(init?.tools).toEqual(expect.arrayContaining(['mcp__web__echo', 'mcp__web__get-sum', 'mcp__web__trigger-long-running-operation']));
      const offered = ((project.server.requests[0]?.body as RequestBody).tools ?? []) as { name: string; input_schema?: unknown }[];
      expect(offered.find((t) => t.name === 'mcp__web__echo')).toMatchObject({ input_schema: { type: 'object', required: ['message'] } });
      const [echo, sum] = results(1);
      expect([echo?.tool_use_id, echo?.is_error ?? false, resultText(echo!)]).toEqual(['toolu_1', false, 'Echo: over sse']);
      expect([sum?.tool_use_id, sum?.is_error]).toEqual(['toolu_2', true]);
      expect(resultText(sum!)).toMatch(/^MCP error -32602: Input validation error: Invalid arguments for tool get-sum: .*expected number, received string at a/);
      expect(lines(run.stdout).at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
    }), 120_000);

  it('gives a call whose server is killed mid-call an is_error result, the next call too, and the run goes on', () =>
    withServer(async (server) => {
      project.server.enqueue(
        { content: [use('toolu_1', 'mcp__web__trigger-long-running-operation', { duration: 600, steps: 2 })], stop_reason: 'tool_use' },
        { content: [use('toolu_2', 'mcp__web__echo', { message: 'anyone?' })], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'went on' }], stop_reason: 'end_turn' },
      );
      // A call nobody answers would end at MCP_TOOL_TIMEOUT (here 90 s, short of the test's bound): this one must not wait.
      // The server has taken the call (it says so before it handles it): it is killed under the call.
      const killable = { called: () => server.called('trigger-long-running-operation'), kill: () => server.kill() };
      const args = ['--mcp-config', sseConfig(server), '--allowedTools', 'mcp__web'];
      const run = await runKilledMidCall(project, args, 'wait', killable, { killedId: 'toolu_1', env: { MCP_TOOL_TIMEOUT: '90000' } });
      const [killed] = results(1);
      expect([killed?.tool_use_id, killed?.is_error]).toEqual(['toolu_1', true]);
      expect(resultText(killed!)).toMatch(/^MCP server web: tool trigger-long-running-operation failed: .*Connection closed/);
      const [after] = results(2);
      expect([after?.tool_use_id, after?.is_error]).toEqual(['toolu_2', true]);
      expect(resultText(after!)).toMatch(/^MCP server web: tool echo failed: .*Not connected/);
      expect(lines(run.stdout).at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'went on' });
    }), 120_000);
});
