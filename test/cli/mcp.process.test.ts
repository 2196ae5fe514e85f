/**
 * `--mcp-config` with the CLI as a process against the local Messages API server and the real
 * `@modelcontextprotocol/server-everything` from npm (stdio): the model sees the server's tools as mcp__every__TOOL,
 * calls one end to end; the init line lists each server with its status; a failing server, a call's error and a call
 * past MCP_TOOL_TIMEOUT are is_error results and the run goes on; permission rules name servers and tools; no server
 * process outlives the agent, a kill -9 of it included.
 */
import { describe, expect, it } from 'vitest';
import { answerFromResults, lastToolResults, resultText } from '../support/agentServer.js';
import { runCli, startCli } from '../support/cli.js';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { everything, probe, processesMarked, waitFor } from '../support/mcp.js';
import { startProbeHttp } from '../support/mcpProbeServer.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('mcp', (p) => (project = p), { noViolations: true });

let count = 0;
/** A config of server-everything as `every` (and more servers), its processes marked with a fresh marker. */
function config(more: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const marker = `cli-${process.pid}-${++count}`;
  return { marker, json: JSON.stringify({ mcpServers: { every: everything(marker, env), ...more } }) };
}
const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id, name, input });
/** The model calls `name` with `input`, then answers with the results it got. */
const calls = (name: string, input: Record<string, unknown>, id = 'toolu_1') =>
  project.server.enqueue({ content: [use(id, name, input)], stop_reason: 'tool_use' }, answerFromResults);
const toolResult = () => lastToolResults(project.server.requests[1]?.body as RequestBody)[0];
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: project.dir, env: { ...project.env, ...env } });
const lines = (stdout: string) => stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

// A server's tools run in -p only when allowed (`--allowedTools mcp__every`), as with Claude Code's -p (docs/cli.md#permissions).
describe('--mcp-config', () => {
  it("lets the model call a server's tool end to end; the init line lists the servers with their status", async () => {
    const { marker, json } = config({ broken: { command: '/nonexistent/mcp-server' } });
    calls('mcp__every__echo', { message: 'from the model' });
    const run = await cli(['-p', '--mcp-config', json, '--output-format', 'stream-json', '--verbose', 'echo it', '--allowedTools', 'mcp__every']);
    expect(run.code, run.stderr).toBe(0);
    const [init] = lines(run.stdout);
    expect(init).toMatchObject({ type: 'system', subtype: 'init', mcp_servers: [{ name: 'every', status: 'connected' }, { name: 'broken', status: 'failed' }] });
    expect(init?.tools).toEqual(expect.arrayContaining(['Bash', 'mcp__every__echo', 'mcp__every__get-sum']));
    const offered = ((project.server.requests[0]?.body as RequestBody).tools ?? []) as { name: string; input_schema?: unknown }[];
    expect(offered.find((t) => t.name === 'mcp__every__echo')).toMatchObject({ input_schema: { type: 'object', required: ['message'] } });
    expect(offered.some((t) => t.name.startsWith('mcp__broken__'))).toBe(false);
    // One line on stderr for the server that failed, naming it and why.
    const said = run.stderr.split('\n').filter((line) => line.includes('MCP server'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^agentloop: MCP server "broken" failed to start, its tools are left out: .*\/nonexistent\/mcp-server/);
    expect(toolResult()).toMatchObject({ tool_use_id: 'toolu_1' });
    expect(toolResult()?.is_error).toBeFalsy();
    expect(resultText(toolResult()!)).toBe('Echo: from the model');
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'result', result: 'Results: Echo: from the model' });
    // Stopped with the run.
    await waitFor(() => processesMarked(marker).length === 0);
  }, 120_000);

  it('gives the model an is_error result for a refused call and for one past MCP_TOOL_TIMEOUT, and the run goes on', async () => {
    const { json } = config();
    project.server.enqueue(
      { content: [use('toolu_1', 'mcp__every__get-sum', { a: 'not a number' })], stop_reason: 'tool_use' },
      { content: [use('toolu_2', 'mcp__every__trigger-long-running-operation', { duration: 60, steps: 1 })], stop_reason: 'tool_use' },
      answerFromResults,
    );
    const run = await cli(['-p', '--mcp-config', json, 'add', '--allowedTools', 'mcp__every'], { MCP_TOOL_TIMEOUT: '1500' });
    expect(run.code, run.stderr).toBe(0);
    const [refused] = lastToolResults(project.server.requests[1]?.body as RequestBody);
    const [late] = lastToolResults(project.server.requests[2]?.body as RequestBody);
    expect(refused?.is_error).toBe(true);
    expect(late?.is_error).toBe(true);
    expect(resultText(late!)).toMatch(/MCP server every: tool trigger-long-running-operation failed: .*timed out/i);
    expect(run.stdout).toMatch(/^Results: /);
  }, 120_000);

  it('applies permission rules to mcp__ names: a server rule, a tool rule, deny beats allow', async () => {
    const { json } = config();
    calls('mcp__every__get-sum', { a: 1, b: 2 });
    const denied = await cli(['-p', '--mcp-config', json, '--allowedTools', 'mcp__every', '--disallowedTools', 'mcp__every__get-sum', '--output-format', 'json', 'sum']);
    expect(denied.code, denied.stderr).toBe(0);
    expect(resultText(toolResult()!)).toBe('Not run: denied by rule mcp__every__get-sum');
    expect(JSON.parse(denied.stdout).permission_denials).toEqual([{ tool_name: 'mcp__every__get-sum', tool_use_id: 'toolu_1', tool_input: { a: 1, b: 2 } }]);

    project.server.requests.length = 0;
    calls('mcp__every__get-sum', { a: 1, b: 2 });
    const allowed = await cli(['-p', '--mcp-config', json, '--allowedTools', 'mcp__every', 'sum']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(resultText(toolResult()!)).toMatch(/3/);
    expect(toolResult()?.is_error).toBeFalsy();
  }, 120_000);

  it('refuses a bad config with one line and exit 2, starting nothing', async () => {
    const run = await cli(['-p', '--mcp-config', JSON.stringify({ mcpServers: { s: { command: 'x', env: { K: '${NOT_SET_ANYWHERE}' } } } }), 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('agentloop: MCP config (JSON): server s: missing environment variables: NOT_SET_ANYWHERE\n');
    expect(project.server.requests).toHaveLength(0);
  }, 60_000);

  it('leaves no server process when the agent is killed with SIGKILL mid-call', async () => {
    const { marker, json } = config();
    calls('mcp__every__trigger-long-running-operation', { duration: 120, steps: 2 });
    const cliRun = startCli(['-p', '--mcp-config', json, '--output-format', 'stream-json', '--verbose', '--include-loop-events', 'wait'], { cwd: project.dir, env: project.env });
    await waitFor(() => cliRun.output().stdout.includes('"type":"tool_start"'), 60_000);
    expect(processesMarked(marker).length).toBeGreaterThan(0);
    cliRun.child.kill('SIGKILL');
    await cliRun.done;
    await waitFor(() => processesMarked(marker).length === 0, 10_000);
  }, 120_000);

  it('--continue starts the servers again and the model goes on using them', async () => {
    const { json } = config();
    calls('mcp__every__echo', { message: 'first' });
    expect((await cli(['-p', '--mcp-config', json, 'one', '--allowedTools', 'mcp__every'])).stdout).toBe('Results: Echo: first\n');
    project.server.requests.length = 0;
    calls('mcp__every__echo', { message: 'second' }, 'toolu_2'); // ids are unique in a history
    const again = await cli(['-p', '--continue', '--mcp-config', json, 'two', '--allowedTools', 'mcp__every']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('Results: Echo: second\n');
    // The resumed history holds the first call and its result.
    expect(JSON.stringify((project.server.requests[0]?.body as RequestBody).messages)).toContain('Echo: first');
  }, 120_000);

  it("passes a server's image to the model as an image block in the tool_result, in order with its text; the terminal names it; --continue sends it again", async () => {
    const { json } = config();
    calls('mcp__every__get-tiny-image', {});
    const run = await cli(['-p', '--mcp-config', json, '--verbose', 'show me', '--allowedTools', 'mcp__every']);
    expect(run.code, run.stderr).toBe(0);
    const [result] = lastToolResults(project.server.requests[1]?.body as RequestBody);
    expect(result?.is_error).toBeFalsy();
    expect(result?.content).toEqual([
      { type: 'text', text: "Here's the image you requested:" },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo[A-Za-z0-9+/]{100,}=*$/) } },
      { type: 'text', text: 'The image above is the MCP logo.' },
    ]);
    // The terminal shows the text and names the image, never its base64.
    expect(run.stderr).toMatch(/\[image image\/png, \d+ bytes\]/);
    expect(run.stderr).not.toContain('iVBORw0KGgo');
    // The transcript keeps the block: the resumed history sends it as it was.
    project.server.requests.length = 0;
    project.server.enqueue({ content: [{ type: 'text', text: 'still here' }], stop_reason: 'end_turn' });
    const again = await cli(['-p', '--continue', '--mcp-config', json, 'and now?', '--allowedTools', 'mcp__every']);
    expect(again.code, again.stderr).toBe(0);
    const resent = (project.server.requests[0]?.body as RequestBody).messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content));
    expect(resent.find((b) => b.type === 'tool_result')).toEqual(result);
  }, 120_000);

  it('--sandbox starts stdio servers in the sandbox: they write the working directory, not the rest', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'agentloop-mcp-outside-'));
    try {
      const json = JSON.stringify({ mcpServers: { probe: probe(`sandbox-${process.pid}`) } });
      project.server.enqueue(
        {
          content: [
            use('toolu_1', 'mcp__probe__write_file', { path: join(outside, 'escaped.txt'), text: 'x' }),
            use('toolu_2', 'mcp__probe__write_file', { path: join(project.dir, 'inside.txt'), text: 'x' }),
          ],
          stop_reason: 'tool_use',
        },
        answerFromResults,
      );
      const run = await cli(['-p', '--sandbox', '--mcp-config', json, 'write', '--allowedTools', 'mcp__probe']);
      expect(run.code, run.stderr).toBe(0);
      expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
      expect(existsSync(join(project.dir, 'inside.txt'))).toBe(true);
      const [escaped, inside] = lastToolResults(project.server.requests[1]?.body as RequestBody);
      expect(escaped?.is_error).toBe(true);
      expect(inside?.is_error).toBeFalsy();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 120_000);

  it('--sandbox starts a server kept under /tmp (its folder shown read-only, as the sandbox empties /tmp)', async () => {
    const folder = mkdtempSync('/tmp/agentloop-mcp-server-');
    try {
      const { args, ...spec } = probe(`sandbox-tmp-${process.pid}`);
      const script = join(folder, 'server.mjs');
      writeFileSync(script, `await import(${JSON.stringify(pathToFileURL(args[2] as string).href)});\n`);
      const json = JSON.stringify({ mcpServers: { probe: { ...spec, args: [args[0], args[1], script, 'stdio'] } } });
      project.server.enqueue(
        { content: [use('toolu_1', 'mcp__probe__write_file', { path: join(project.dir, 'inside.txt'), text: 'x' })], stop_reason: 'tool_use' },
        answerFromResults,
      );
      const run = await cli(['-p', '--sandbox', '--mcp-config', json, 'write', '--allowedTools', 'mcp__probe']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain('MCP server');
      expect(existsSync(join(project.dir, 'inside.txt'))).toBe(true);
      expect(toolResult()?.is_error).toBeFalsy();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 120_000);

  it('reaches an http server (the SDK\'s streamable HTTP on 127.0.0.1) with the headers of its config, ${VAR} expanded', async () => {
    const http = await startProbeHttp();
    try {
      const json = JSON.stringify({ mcpServers: { web: { type: 'http', url: http.url, headers: { Authorization: 'Bearer ${PROBE_TOKEN}' } } } });
      calls('mcp__web__whoami', {});
      const run = await cli(['-p', '--mcp-config', json, 'who', '--allowedTools', 'mcp__web'], { PROBE_TOKEN: 'tok-123' });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('Results: probe, auth Bearer tok-123\n');
    } finally {
      await http.close();
    }
  }, 120_000);
});
