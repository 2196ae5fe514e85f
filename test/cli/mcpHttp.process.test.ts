/**
 * `"type": "http"` (streamable HTTP) with the CLI as a process against the local Messages API server and the real
 * `@modelcontextprotocol/server-everything` from npm served over the MCP SDK's StreamableHTTPServerTransport on
 * 127.0.0.1 (test/support/mcpHttpServer.ts, a process of its own). A server killed once it has taken a call cuts
 * that call's answer stream: the call ends at once with an is_error result bound to its tool_use (where the MCP SDK
 * alone would wait until MCP_TOOL_TIMEOUT), and the run goes on to its end with every history valid (the requests,
 * the transcript, the stream-json lines: test/support/midCall.ts).
 */
import { describe, expect, it } from 'vitest';
import { lastToolResults, resultText } from '../support/agentServer.js';
import { startEverythingHttp } from '../support/mcpHttpServer.js';
import type { RequestBody } from '../support/messagesServer.js';
import { jsonLines, runKilledMidCall } from '../support/midCall.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('mcp-http', (p) => (project = p), { noViolations: true });

const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id, name, input });
const results = (request: number) => lastToolResults(project.server.requests[request]?.body as RequestBody);

describe('an MCP server over streamable HTTP', () => {
  it('gives a call whose answer stream is cut by the server dying an is_error result at once, and the run goes on', async () => {
    const server = await startEverythingHttp();
    try {
      project.server.enqueue(
        { content: [use('toolu_1', 'mcp__web__echo', { message: 'over http' })], stop_reason: 'tool_use' },
        { content: [use('toolu_2', 'mcp__web__trigger-long-running-operation', { duration: 600, steps: 2 })], stop_reason: 'tool_use' },
        { content: [use('toolu_3', 'mcp__web__echo', { message: 'anyone?' })], stop_reason: 'tool_use' },
        { content: [{ type: 'text', text: 'went on' }], stop_reason: 'end_turn' },
      );
      const config = JSON.stringify({ mcpServers: { web: { type: 'http', url: server.url } } });
      // A call nobody answers would end at MCP_TOOL_TIMEOUT (here 60 s, short of the test's bound): this one must not wait.
      // The server has taken the call and sent its event stream's headers: it is killed under the call.
      const killable = { called: () => server.called('trigger-long-running-operation'), kill: () => server.kill() };
      const args = ['--mcp-config', config, '--allowedTools', 'mcp__web'];
      const run = await runKilledMidCall(project, args, 'wait', killable, { killedId: 'toolu_2', env: { MCP_TOOL_TIMEOUT: '60000' } });
      const [echo] = results(1);
      expect([echo?.tool_use_id, echo?.is_error ?? false, resultText(echo!)]).toEqual(['toolu_1', false, 'Echo: over http']);
      const [killed] = results(2);
      expect([killed?.tool_use_id, killed?.is_error]).toEqual(['toolu_2', true]);
      expect(resultText(killed!)).toMatch(/^MCP server web: tool trigger-long-running-operation failed: MCP error -32000: the server's answer was cut: /);
      const [after] = results(3);
      expect([after?.tool_use_id, after?.is_error]).toEqual(['toolu_3', true]);
      expect(project.server.requests).toHaveLength(4);
      expect(jsonLines(run.stdout).at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'went on' });
    } finally {
      await server.kill();
    }
  }, 120_000);
});
