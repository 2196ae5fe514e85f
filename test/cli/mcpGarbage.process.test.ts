/**
 * A stdio server that answers tool calls with garbage (test/support/mcpGarbageServer.ts: lines that are not JSON, JSON
 * that is not JSON-RPC, an answer to another id, a batch, results of the wrong shape, an error, an answer twice), with
 * the CLI as a process: each call is an is_error tool_result bound to its tool_use (or, where the garbage surrounds a
 * right answer, that answer), the run goes on, and nothing is poisoned: the next call to the same server is answered
 * right and in order, and every request the model got holds a valid history (the local server refuses any other).
 */
import { describe, expect, it } from 'vitest';
import { lastToolResults, resultText } from '../support/agentServer.js';
import { runCli } from '../support/cli.js';
import { garbage, processesMarked, waitFor } from '../support/mcp.js';
import { GARBAGE } from '../support/mcpGarbageServer.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('mcp-garbage', (p) => (project = p), { noViolations: true });

/** What the model gets for each kind of garbage: an is_error result saying this, or (ok) this answer. */
const EXPECTED: Record<keyof typeof GARBAGE, { error: RegExp } | { ok: string }> = {
  noise_then_answer: { ok: 'answered after the noise' },
  not_json: { error: /Request timed out$/ },
  not_jsonrpc: { error: /Request timed out$/ },
  wrong_id: { error: /Request timed out$/ },
  batch: { error: /Request timed out$/ },
  content_not_array: { error: /not a valid result: content: expected array, received string$/ },
  text_not_string: { error: /not a valid result: content\.0\.text: expected string, received number$/ },
  unknown_block: { error: /not a valid result: content\.0\.type: expected "text"$/ },
  result_null: { error: /Request timed out$/ },
  is_error_not_boolean: { error: /not a valid result: isError: expected boolean, received string$/ },
  rpc_error: { error: /internal garbage error/ },
  answer_twice: { ok: 'first answer' },
};

describe('an MCP server answering garbage', () => {
  it('gives the model an is_error result for each kind, and the next call to the server is answered right', async () => {
    const marker = `garbage-${process.pid}`;
    const kinds = Object.keys(EXPECTED) as (keyof typeof GARBAGE)[];
    expect(kinds.sort()).toEqual(Object.keys(GARBAGE).sort());
    const use = (id: string, tool: string) => ({ type: 'tool_use' as const, id, name: `mcp__junk__${tool}`, input: {} });
    project.server.enqueue(
      ...kinds.map((kind, i) => ({ content: [use(`toolu_g${i}`, kind), use(`toolu_ok${i}`, 'ok')], stop_reason: 'tool_use' as const })),
      { content: [{ type: 'text' as const, text: 'went on' }], stop_reason: 'end_turn' as const },
    );
    const json = JSON.stringify({ mcpServers: { junk: garbage(marker) } });
    // A call that gets no answer ends at MCP_TOOL_TIMEOUT; a right answer comes in milliseconds.
    // A server's tools run in -p only when allowed, as with Claude Code's -p (docs/cli.md#permissions).
    const run = await runCli(['-p', '--mcp-config', json, '--output-format', 'json', 'go', '--allowedTools', 'mcp__junk'], { cwd: project.dir, env: { ...project.env, MCP_TOOL_TIMEOUT: '5000' } });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', result: 'went on', is_error: false });
    const seen: Record<string, string> = {};
    kinds.forEach((kind, i) => {
      const [bad, ok] = lastToolResults(project.server.requests[i + 1]?.body as RequestBody);
      expect(bad?.tool_use_id).toBe(`toolu_g${i}`);
      expect(ok?.tool_use_id).toBe(`toolu_ok${i}`);
      seen[kind] = `${bad?.is_error === true ? 'error' : 'ok'}: ${resultText(bad!)}`;
      // Not poisoned: the server's i+1-th right answer, to this call, not a stale one.
      expect([ok?.is_error ?? false, resultText(ok!)]).toEqual([false, `ok ${i + 1}`]);
    });
    for (const kind of kinds) {
      const want = EXPECTED[kind]!;
      if ('ok' in want) expect(seen[kind], kind).toBe(`ok: ${want.ok}`);
      else expect(seen[kind], kind).toMatch(new RegExp(`^error: MCP server junk: tool ${kind} failed: (MCP error -?\\d+: )?${want.error.source}`, 'i'));
    }
    await waitFor(() => processesMarked(marker).length === 0);
  }, 180_000);
});
