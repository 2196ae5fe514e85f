/**
 * A stdio MCP server under a real CLI run (`-p --mcp-config`, the local Messages API server): the server's process
 * killed while a call of it runs gives that call an is_error tool_result bound to its tool_use, the next call too,
 * and the run goes on to its end with every history valid (the requests, the transcript, the stream-json lines); a
 * result of structured content and no text is that content as JSON, one with text too is its text; a readOnlyHint
 * tool's call starts while the reply still streams, another tool's only once it is whole.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerFromResults, lastToolResults, resultText } from '../support/agentServer.js';
import { runCli } from '../support/cli.js';
import { everything, probe, processesMarked, waitFor } from '../support/mcp.js';
import type { RequestBody } from '../support/messagesServer.js';
import { jsonLines, runKilledMidCall, type KilledServer } from '../support/midCall.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
/** Told of each SSE frame the Messages API server is about to write (request index, event name), when set. */
let onFrame: ((request: number, event: string) => void) | undefined;
cliProjectPerTest('mcp-stdio', (p) => (project = p), { noViolations: true, server: { onFrame: (request, frame) => onFrame?.(request, frame.event) } });

const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id, name, input });
const results = (request: number) => lastToolResults(project.server.requests[request]?.body as RequestBody);

/** The probe server's own process (node, not the containment's bwrap around it): it said it took the call by writing `mark`. */
function probeProcess(marker: string, mark: string): KilledServer {
  const own = () => processesMarked(marker).filter((pid) => readCmdline(pid)[0] === process.execPath);
  return {
    called: () => waitFor(() => existsSync(mark) && readFileSync(mark, 'utf8').includes('started'), 60_000),
    kill: async () => {
      const pids = own();
      expect(pids).toHaveLength(1);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      await waitFor(() => own().length === 0);
    },
  };
}

/** A process's argv ([] once it is gone). */
function readCmdline(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

describe('a stdio MCP server', () => {
  it('killed mid-call: that call is an is_error result bound to its tool_use, the next call too, and the run goes on', async () => {
    const marker = `stdio-kill-${process.pid}`;
    const mark = join(project.dir, 'called.txt');
    project.server.enqueue(
      { content: [use('toolu_1', 'mcp__probe__slow_write', { path: mark, seconds: 600 })], stop_reason: 'tool_use' },
      { content: [use('toolu_2', 'mcp__probe__whoami', {})], stop_reason: 'tool_use' },
      { content: [{ type: 'text', text: 'went on' }], stop_reason: 'end_turn' },
    );
    const config = JSON.stringify({ mcpServers: { probe: probe(marker) } });
    // A call nobody answers would end at MCP_TOOL_TIMEOUT (here 90 s, short of the test's bound): this one must not wait.
    const run = await runKilledMidCall(project, ['--mcp-config', config, '--allowedTools', 'mcp__probe'], 'wait', probeProcess(marker, mark), {
      killedId: 'toolu_1',
      env: { MCP_TOOL_TIMEOUT: '90000' },
    });
    const [killed] = results(1);
    expect([killed?.tool_use_id, killed?.is_error]).toEqual(['toolu_1', true]);
    expect(resultText(killed!)).toMatch(/^MCP server probe: tool slow_write failed: .*Connection closed/);
    const [after] = results(2);
    expect([after?.tool_use_id, after?.is_error]).toEqual(['toolu_2', true]);
    expect(resultText(after!)).toMatch(/^MCP server probe: tool whoami failed: .*Not connected/);
    expect(jsonLines(run.stdout).at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'went on' });
    await waitFor(() => processesMarked(marker).length === 0);
  }, 120_000);

  it('gives a result of structured content and no text as that JSON; a result with text too, as its text', async () => {
    project.server.enqueue(
      {
        content: [use('toolu_1', 'mcp__probe__weather', { city: 'Oslo' }), use('toolu_2', 'mcp__every__get-structured-content', { location: 'Chicago' })],
        stop_reason: 'tool_use',
      },
      answerFromResults,
    );
    const config = JSON.stringify({ mcpServers: { probe: probe(`structured-${process.pid}`), every: everything(`structured-${process.pid}`) } });
    const args = ['-p', '--mcp-config', config, '--allowedTools', 'mcp__probe', 'mcp__every', '--output-format', 'stream-json', '--verbose', 'weather'];
    const run = await runCli(args, { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    const [structured, both] = results(1);
    const seen = (result: typeof structured) => [result?.tool_use_id, result?.is_error ?? false, result?.content];
    expect(seen(structured)).toEqual(['toolu_1', false, '{"city":"Oslo","celsius":21.5}']);
    // server-everything sends the same object as text and as structured content: the text, once.
    expect(seen(both)).toEqual(['toolu_2', false, '{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}']);
    // One user line per tool result, as Claude Code writes them: each as its call ends (both are read-only and run at
    // once, so in either order; here taken in the calls' order).
    const userLines = jsonLines(run.stdout).filter((line) => line.type === 'user');
    const idOf = (content: unknown) => String((content as { tool_use_id?: string }[] | undefined)?.[0]?.tool_use_id);
    const contents = userLines.map((line) => line.message?.content).sort((a, b) => idOf(a).localeCompare(idOf(b)));
    expect(contents).toMatchObject([[{ tool_use_id: 'toolu_1', content: '{"city":"Oslo","celsius":21.5}', is_error: false }], [{ tool_use_id: 'toolu_2' }]]);
  }, 120_000);

  it("starts a readOnlyHint tool's call while the reply still streams, and another tool's only once the reply is whole", async () => {
    const readOnly = join(project.dir, 'read-only.txt');
    const writing = join(project.dir, 'writing.txt');
    const atStop: boolean[][] = [];
    onFrame = (request, event) => {
      if (request === 0 && event === 'message_stop') atStop.push([existsSync(readOnly), existsSync(writing)]);
    };
    try {
      project.server.enqueue(
        {
          content: [
            use('toolu_1', 'mcp__probe__note', { path: readOnly }),
            use('toolu_2', 'mcp__probe__write_file', { path: writing, text: 'x' }),
            { type: 'text', text: 'This text still streams, slowly, after both calls are in.' },
          ],
          stop_reason: 'tool_use',
          delayMs: 250, // between frames: the reply streams some seconds after the first tool_use is whole
        },
        answerFromResults,
      );
      const config = JSON.stringify({ mcpServers: { probe: probe(`stream-${process.pid}`) } });
      const run = await runCli(['-p', '--mcp-config', config, '--allowedTools', 'mcp__probe', 'note'], { cwd: project.dir, env: project.env });
      expect(run.code, run.stderr).toBe(0);
      // At the reply's message_stop the read-only call had reached the server; the writing one had not.
      expect(atStop).toEqual([[true, false]]);
      expect(run.stdout).toBe(`Results: noted | wrote ${writing}\n`);
    } finally {
      onFrame = undefined;
    }
  }, 120_000);
});
