/**
 * The Agent SDK's `mcpServers` that Claude Code runs or connects to (stdio, http), with agentloop as the engine. SDK
 * 0.3.335 sends them inside the `initialize` control request and starts its engine with `--await-initialize`, not as
 * `--mcp-config`: agentloop starts them then, as it starts `--mcp-config` servers (checked by the same code, in the
 * same containment, listed in the init line and by mcp_status, killed with the agent), merged with the scopes' servers
 * unless `strictMcpConfig`. A bad configuration is an error answer to initialize; a server that fails to start is
 * `failed` and the run goes on.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { query, type McpServerConfig, type Options, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { CLI } from '../../support/cli.js';
import { answerFromResults, lastToolResults, resultText } from '../../support/agentServer.js';
import { everything, processesMarked, waitFor } from '../../support/mcp.js';
import { startEverythingHttp } from '../../support/mcpHttpServer.js';
import { processes } from '../../support/processes.js';
import { startEverythingSse } from '../../support/mcpSseServer.js';
import type { RequestBody } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';

let project: CliProject;
cliProjectPerTest('sdk-mcp-servers', (p) => (project = p), { noViolations: true });

const use = (id: string, name: string, input: Record<string, unknown>) => ({ content: [{ type: 'tool_use' as const, id, name, input }], stop_reason: 'tool_use' as const });
const marker = () => `sdkmcp-${process.pid}-${Math.random().toString(36).slice(2)}`;

/** A program with one user message whose input stays open until `finish()`: its query, to ask and to read. */
function program(mcpServers: Record<string, McpServerConfig>, extra: Options = {}) {
  let finish = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));
  async function* prompt(): AsyncIterable<SDKUserMessage> {
    yield { type: 'user', message: { role: 'user', content: 'use the server' }, parent_tool_use_id: null, session_id: '' };
    await done;
  }
  const q = query({ prompt: prompt(), options: { pathToClaudeCodeExecutable: CLI, cwd: project.dir, env: project.env, mcpServers, ...extra } });
  const messages = (async () => {
    const seen: SDKMessage[] = [];
    try {
      for await (const message of q) {
        seen.push(message);
        if (message.type === 'result') break;
      }
    } finally {
      finish();
    }
    return seen;
  })();
  return { q, messages, finish };
}

const initLine = (messages: SDKMessage[]) => messages.find((m) => m.type === 'system' && m.subtype === 'init') as { mcp_servers?: unknown; tools?: string[] } | undefined;
/** The CLI processes of this test's project (their AGENTLOOP_HOME is its own). */
const engines = () => processes().filter((p) => p.cmdline.includes(CLI) && p.state !== 'Z' && environOf(p.pid).includes(`AGENTLOOP_HOME=${project.home}`));
const environOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  } catch {
    return [];
  }
};
const firstResult = (request: number) => lastToolResults(project.server.requests[request]?.body as RequestBody)[0];

describe("the Agent SDK's mcpServers (stdio, http, sse) with agentloop as the engine", () => {
  it('starts a stdio server given in initialize: initializationResult settles, mcp_status lists it connected, the model calls its tool', async () => {
    const mark = marker();
    project.server.enqueue(use('toolu_1', 'mcp__every__echo', { message: 'over stdin' }), answerFromResults);
    const run = program({ every: everything(mark) }, { allowedTools: ['mcp__every'] });
    const init = await run.q.initializationResult();
    expect(init.mcp_servers_applied).toBe(true);
    const status = await run.q.mcpServerStatus();
    expect(status.map((s) => [s.name, s.status])).toEqual([['every', 'connected']]);
    expect(status[0]?.tools?.map((t) => t.name)).toContain('echo');
    const messages = await run.messages;
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Results: Echo: over stdin' });
    const result = firstResult(1);
    expect([result?.tool_use_id, result?.is_error ?? false, resultText(result!)]).toEqual(['toolu_1', false, 'Echo: over stdin']);
    expect(initLine(messages)?.mcp_servers).toEqual([{ name: 'every', status: 'connected' }]);
    expect(initLine(messages)?.tools).toContain('mcp__every__echo');
    // The program's input ended: the session ends and its server with it.
    await waitFor(() => processesMarked(mark).length === 0, 20_000);
  }, 120_000);

  it("mcpServersDelivery 'argv' (--mcp-config, no --await-initialize): mcp_status lists the same server connected", async () => {
    const mark = marker();
    project.server.enqueue(use('toolu_1', 'mcp__every__echo', { message: 'over argv' }), answerFromResults);
    const run = program({ every: everything(mark) }, { allowedTools: ['mcp__every'], mcpServersDelivery: 'argv' });
    expect((await run.q.initializationResult()).mcp_servers_applied).toBeUndefined();
    expect((await run.q.mcpServerStatus()).map((s) => [s.name, s.status, s.tools?.some((t) => t.name === 'echo')])).toEqual([['every', 'connected', true]]);
    expect((await run.messages).at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'Results: Echo: over argv' });
  }, 120_000);

  it.each([
    { type: 'http' as const, name: 'web', start: startEverythingHttp },
    { type: 'sse' as const, name: 'old', start: startEverythingSse },
  ])('connects to an $type server given in initialize and calls its tool', async ({ type, name, start }) => {
    const server = await start();
    try {
      project.server.enqueue(use('toolu_1', `mcp__${name}__echo`, { message: `over ${type}` }), answerFromResults);
      const run = program({ [name]: { type, url: server.url } }, { allowedTools: [`mcp__${name}`] });
      expect((await run.q.initializationResult()).mcp_servers_applied).toBe(true);
      expect((await run.q.mcpServerStatus()).map((s) => [s.name, s.status])).toEqual([[name, 'connected']]);
      expect((await run.messages).at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
      expect(resultText(firstResult(1)!)).toBe(`Echo: over ${type}`);
    } finally {
      await server.kill();
    }
  }, 120_000);

  it('answers initialize with an error naming a bad server configuration: initializationResult rejects, no model call', async () => {
    const bad = { broken: { type: 'ftp', url: 'ftp://127.0.0.1/' } } as unknown as Record<string, McpServerConfig>;
    const run = program(bad);
    await expect(run.q.initializationResult()).rejects.toThrow('server broken: unknown "type" "ftp" (stdio, http or sse)');
    run.finish();
    await run.messages.catch(() => undefined);
    const unset = program({ every: { command: process.execPath, args: ['${NOT_SET_ANYWHERE}'] } });
    await expect(unset.q.initializationResult()).rejects.toThrow('server every: missing environment variables: NOT_SET_ANYWHERE');
    unset.finish();
    await unset.messages.catch(() => undefined);
    expect(project.server.requests).toHaveLength(0);
  }, 120_000);

  it("bounds a call by the server's own timeout (the SDK's per-server option, over MCP_TOOL_TIMEOUT): is_error, the run goes on", async () => {
    project.server.enqueue(use('toolu_1', 'mcp__every__trigger-long-running-operation', { duration: 30, steps: 1 }), answerFromResults);
    const started = Date.now();
    const run = program({ every: { ...everything(marker()), timeout: 1500 } as McpServerConfig }, { allowedTools: ['mcp__every'] });
    expect((await run.messages).at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
    const result = firstResult(1);
    expect([result?.tool_use_id, result?.is_error]).toEqual(['toolu_1', true]);
    expect(resultText(result!)).toMatch(/MCP server every: tool trigger-long-running-operation failed: .*timed out/i);
    expect(Date.now() - started).toBeLessThan(20_000);
    const bad = program({ every: { ...everything(marker()), timeout: 'soon' } as unknown as McpServerConfig });
    await expect(bad.q.initializationResult()).rejects.toThrow('server every: "timeout" must be a number of milliseconds');
    bad.finish();
    await bad.messages.catch(() => undefined);
  }, 120_000);

  it('lists a server that fails to start as failed, with why, and the run goes on', async () => {
    project.server.enqueue({ content: [{ type: 'text', text: 'fine without it' }], stop_reason: 'end_turn' });
    const run = program({ broken: { command: join(project.dir, 'no-such-server') } });
    expect((await run.q.initializationResult()).mcp_servers_applied).toBe(true);
    const [state] = await run.q.mcpServerStatus();
    expect(state).toMatchObject({ name: 'broken', status: 'failed', error: expect.stringMatching(/\S/) });
    const messages = await run.messages;
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'fine without it' });
    expect(initLine(messages)?.mcp_servers).toEqual([{ name: 'broken', status: 'failed' }]);
  }, 120_000);

  it("merges them with the project's .mcp.json servers, and strictMcpConfig leaves those out", async () => {
    const [mine, theirs] = [marker(), marker()];
    writeFileSync(join(project.dir, '.mcp.json'), JSON.stringify({ mcpServers: { proj: everything(theirs) } }));
    project.server.enqueue({ content: [{ type: 'text', text: 'one' }], stop_reason: 'end_turn' }, { content: [{ type: 'text', text: 'two' }], stop_reason: 'end_turn' });
    const merged = program({ every: everything(mine) });
    expect((await merged.q.mcpServerStatus()).map((s) => [s.name, s.status]).sort()).toEqual([['every', 'connected'], ['proj', 'connected']]);
    await merged.messages;
    const strict = program({ every: everything(mine) }, { strictMcpConfig: true });
    expect((await strict.q.mcpServerStatus()).map((s) => [s.name, s.status])).toEqual([['every', 'connected']]);
    expect(initLine(await strict.messages)?.mcp_servers).toEqual([{ name: 'every', status: 'connected' }]);
    await waitFor(() => processesMarked(mine).length + processesMarked(theirs).length === 0, 20_000);
  }, 120_000);

  it('leaves no server process when the program is killed with SIGKILL mid-call', async () => {
    const mark = marker();
    project.server.enqueue(use('toolu_1', 'mcp__every__trigger-long-running-operation', { duration: 120, steps: 2 }), answerFromResults);
    const source = `
      import { query } from '@anthropic-ai/claude-agent-sdk';
      const [cli, cwd, servers] = process.argv.slice(1);
      async function* prompt() {
        yield { type: 'user', message: { role: 'user', content: 'wait' }, parent_tool_use_id: null, session_id: '' };
        await new Promise(() => {});
      }
      const q = query({ prompt: prompt(), options: { pathToClaudeCodeExecutable: cli, cwd, env: JSON.parse(process.env.CLI_ENV), mcpServers: JSON.parse(servers), allowedTools: ['mcp__every'] } });
      for await (const m of q) if (m.type === 'assistant') process.stdout.write('CALLED\\n');`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', source, CLI, project.dir, JSON.stringify({ every: everything(mark) })], {
      cwd: process.cwd(),
      env: { ...process.env, CLI_ENV: JSON.stringify(project.env) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    await waitFor(() => out.includes('CALLED') && processesMarked(mark).length > 0, 60_000);
    expect(engines().length).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await exited;
    // The engine sees its host gone: it stops the call, its servers and itself (the tool would run for 120 s).
    await waitFor(() => processesMarked(mark).length === 0 && engines().length === 0, 20_000);
  }, 120_000);
});
