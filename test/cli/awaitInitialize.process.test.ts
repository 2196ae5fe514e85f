/**
 * `--await-initialize` and the `mcpServers` of an `initialize` request, on the stream-json protocol itself (the CLI as
 * a process, its stdin written line by line): the servers start with the initialize, a name given there replaces the
 * command line's; a user message written before the initialize waits for it and has its servers; without
 * `--await-initialize`, initialize's servers are not started and the answer says so (`mcp_servers_applied: false`,
 * as Claude Code answers), with a line on stderr.
 */
import { describe, expect, it } from 'vitest';
import { answerFromResults, lastToolResults, resultText } from '../support/agentServer.js';
import { startCli } from '../support/cli.js';
import { everything, processesMarked, waitFor } from '../support/mcp.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('await-init', (p) => (project = p), { noViolations: true });

const marker = () => `await-init-${process.pid}-${Math.random().toString(36).slice(2)}`;
const BASE = ['--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'mcp__every'];
const user = (text: string) => `${JSON.stringify({ type: 'user', message: { role: 'user', content: text } })}\n`;
const request = (id: string, body: Record<string, unknown>) => `${JSON.stringify({ type: 'control_request', request_id: id, request: body })}\n`;
const lines = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
const answerTo = (stdout: string, id: string) => lines(stdout).find((l) => l.type === 'control_response' && l.response?.request_id === id)?.response;

/** The CLI with its stdin open; `ask` writes a control request and resolves with its answer. */
function session(args: string[]) {
  const cli = startCli([...BASE, ...args], { cwd: project.dir, env: project.env, openStdin: true });
  const ask = async (id: string, body: Record<string, unknown>) => {
    cli.child.stdin!.write(request(id, body));
    await waitFor(() => answerTo(cli.output().stdout, id) !== undefined, 60_000);
    return answerTo(cli.output().stdout, id);
  };
  return { cli, ask };
}

describe('--await-initialize and the mcpServers of initialize', () => {
  it("starts initialize's servers with it, a name given there replacing --mcp-config's", async () => {
    const [flag, given] = [marker(), marker()];
    const { cli, ask } = session(['--await-initialize', '--mcp-config', JSON.stringify({ mcpServers: { every: everything(flag) } })]);
    const answer = await ask('r1', { subtype: 'initialize', mcpServers: { every: everything(given) } });
    expect(answer).toMatchObject({ subtype: 'success', response: { mcp_servers_applied: true } });
    expect(processesMarked(given).length).toBeGreaterThan(0);
    expect(processesMarked(flag)).toEqual([]);
    const status = await ask('r2', { subtype: 'mcp_status' });
    expect(status.response.mcpServers.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([['every', 'connected']]);
    cli.child.stdin!.end();
    expect((await cli.done).code).toBe(0);
    await waitFor(() => processesMarked(given).length === 0, 20_000);
  }, 120_000);

  it("a user message written before initialize waits for it, and its turn has initialize's servers", async () => {
    const given = marker();
    project.server.enqueue({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'mcp__every__echo', input: { message: 'after initialize' } }], stop_reason: 'tool_use' }, answerFromResults);
    const { cli, ask } = session(['--await-initialize']);
    cli.child.stdin!.write(user('echo it'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(project.server.requests).toHaveLength(0);
    expect((await ask('r1', { subtype: 'initialize', mcpServers: { every: everything(given) } })).subtype).toBe('success');
    await waitFor(() => lines(cli.output().stdout).some((l) => l.type === 'result'), 60_000);
    cli.child.stdin!.end();
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(0);
    expect(lines(run.stdout).find((l) => l.type === 'system' && l.subtype === 'init')).toMatchObject({ mcp_servers: [{ name: 'every', status: 'connected' }] });
    expect(resultText(lastToolResults(project.server.requests[1]?.body as RequestBody)[0]!)).toBe('Echo: after initialize');
  }, 120_000);

  it("initialize's servers' env values are secrets: the model, stream-json and the transcript get them redacted", async () => {
    const given = marker();
    const secret = `initEnvValue-${process.pid}-7c1e`;
    project.server.enqueue(
      { content: [{ type: 'tool_use', id: 'toolu_1', name: 'mcp__every__get-env', input: {} }], stop_reason: 'tool_use' },
      { content: [{ type: 'text', text: `It is ${secret}.` }], stop_reason: 'end_turn' },
    );
    const { cli, ask } = session(['--await-initialize']);
    expect((await ask('r1', { subtype: 'initialize', mcpServers: { every: everything(given, { SERVICE_CONFIG: secret }) } })).subtype).toBe('success');
    cli.child.stdin!.write(user('what is your environment?'));
    await waitFor(() => lines(cli.output().stdout).some((l) => l.type === 'result'), 60_000);
    cli.child.stdin!.end();
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(0);
    const model = JSON.stringify(project.server.requests.map((r) => r.body));
    expect(model).toContain('"SERVICE_CONFIG\\": \\"[redacted mcp server every]\\"');
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const transcript = readdirSync(project.home, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
      .join('\n');
    for (const [where, text] of [['the model', model], ['stdout', run.stdout], ['stderr', run.stderr], ['the transcript', transcript]]) expect(text, where).not.toContain(secret);
  }, 120_000);

  it("without --await-initialize, answers mcp_servers_applied: false and starts none of initialize's servers", async () => {
    const given = marker();
    const { cli, ask } = session([]);
    const answer = await ask('r1', { subtype: 'initialize', mcpServers: { every: everything(given) } });
    expect(answer).toMatchObject({ subtype: 'success', response: { mcp_servers_applied: false } });
    expect((await ask('r2', { subtype: 'mcp_status' })).response.mcpServers).toEqual([]);
    cli.child.stdin!.end();
    const run = await cli.done;
    expect(run.stderr).toContain('agentloop: the MCP servers of initialize (every) are not started: agentloop reads them only with --await-initialize');
    expect(processesMarked(given)).toEqual([]);
  }, 120_000);
});
