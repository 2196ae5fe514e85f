/**
 * MCP servers as tools of the loop, against the real `@modelcontextprotocol/server-everything` from npm (stdio),
 * started as agentloop starts them (contained as the bash tool's commands): the listing, a call, a failed start, the
 * environment a server gets, a server killed mid-call and one that never answers.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/core/tool.js';
import { startMcpServers, type McpServers } from '../../../src/tools/mcp/servers.js';
import { everything, processesMarked, waitFor } from '../../support/mcp.js';

const started: McpServers[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

function start(...args: Parameters<typeof startMcpServers>): McpServers {
  const servers = startMcpServers(...args);
  started.push(servers);
  return servers;
}

const context = () => ({ signal: new AbortController().signal, cwd: process.cwd() });
const toolNamed = (tools: Tool[], name: string) => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(', ')}`);
  return tool;
};

describe('MCP servers (server-everything, stdio)', () => {
  it('lists the tools as mcp__SERVER__TOOL with their schemas, calls one, and starts the others of a run beside a failing one', async () => {
    const marker = `list-${process.pid}`;
    const servers = start({ every: everything(marker), 'no.such': { type: 'stdio', command: '/nonexistent/server', args: [], env: {} } }, { cwd: process.cwd() });
    expect(servers.states().map((s) => s.status)).toEqual(['pending', 'pending']);
    await servers.ready();
    const [every, missing] = servers.states();
    expect(every).toEqual({ name: 'every', status: 'connected' });
    expect(missing?.status).toBe('failed');
    expect(missing?.error).toContain('/nonexistent/server');
    const tools = servers.tools();
    expect(tools.every((t) => t.name.startsWith('mcp__every__'))).toBe(true);
    const echo = toolNamed(tools, 'mcp__every__echo');
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
    expect(await echo.run({ message: 'hello there' }, context())).toEqual({ isError: false, content: 'Echo: hello there' });
    // A bad input is the server's to refuse: an is_error result, and the server goes on answering.
    const refused = await echo.run({ message: 42 }, context());
    expect(refused.isError).toBe(true);
    expect(await toolNamed(tools, 'mcp__every__get-sum').run({ a: 2, b: 40 }, context())).toMatchObject({ isError: false, content: expect.stringContaining('42') });
  }, 60_000);

  it("leaves no listener on the run's signal after its calls (the SDK's would pile up: Node warns past ten)", async () => {
    const servers = start({ every: everything(`sig-${process.pid}`) }, { cwd: process.cwd() });
    await servers.ready();
    const signal = new AbortController().signal;
    const echo = toolNamed(servers.tools(), 'mcp__every__echo');
    for (let i = 0; i < 12; i++) expect((await echo.run({ message: `${i}` }, { signal, cwd: process.cwd() })).isError).toBe(false);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  }, 60_000);

  it('makes tools annotated readOnlyHint concurrency-safe, and only those', async () => {
    const servers = start({ every: everything(`ro-${process.pid}`) }, { cwd: process.cwd() });
    await servers.ready();
    const safe = servers.tools().filter((t) => t.isConcurrencySafe?.({}) === true).map((t) => t.name);
    expect(safe).toContain('mcp__every__echo');
    expect(safe).not.toContain('mcp__every__toggle-simulated-logging'); // annotated readOnlyHint: false
  }, 60_000);

  it("gives a server only its config's environment: the agent's credentials are not passed on", async () => {
    const saved = { ...process.env };
    process.env.SOME_SERVICE_TOKEN = 'tok-should-not-pass';
    process.env.ANTHROPIC_API_KEY = 'sk-ant-api03-should-not-pass';
    try {
      const servers = start({ every: everything(`env-${process.pid}`, { GIVEN: 'by-config' }) }, { cwd: process.cwd() });
      await servers.ready();
      const shown = await toolNamed(servers.tools(), 'mcp__every__get-env').run({}, context());
      const env = JSON.parse(shown.content) as Record<string, string>;
      expect(env.GIVEN).toBe('by-config');
      // The SDK's safe few, and PWD (set by bubblewrap's --chdir).
      const safe = ['AGENTLOOP_TEST_MARKER', 'GIVEN', 'HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'PWD'];
      expect(Object.keys(env).filter((k) => !safe.includes(k))).toEqual([]);
    } finally {
      process.env = saved;
    }
  }, 60_000);

  it('answers a call whose server is killed mid-call with is_error, and later calls too', async () => {
    const marker = `kill-${process.pid}`;
    const servers = start({ every: everything(marker) }, { cwd: process.cwd() });
    await servers.ready();
    const long = toolNamed(servers.tools(), 'mcp__every__trigger-long-running-operation');
    const call = long.run({ duration: 60, steps: 2 }, context());
    const pids = processesMarked(marker);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already: the first one killed may take the others with it (they share its PID namespace)
      }
    }
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/MCP server every: tool trigger-long-running-operation failed: .*(closed|Not connected)/i);
    const after = await toolNamed(servers.tools(), 'mcp__every__echo').run({ message: 'x' }, context());
    expect(after.isError).toBe(true);
  }, 60_000);

  it('gives up a call past MCP_TOOL_TIMEOUT with is_error, and the server answers the next call', async () => {
    const servers = start({ every: everything(`hang-${process.pid}`) }, { cwd: process.cwd(), env: { ...process.env, MCP_TOOL_TIMEOUT: '1500' } });
    await servers.ready();
    const result = await toolNamed(servers.tools(), 'mcp__every__trigger-long-running-operation').run({ duration: 60, steps: 1 }, context());
    expect(result).toEqual({ isError: true, content: expect.stringMatching(/timed out/i) });
    expect(await toolNamed(servers.tools(), 'mcp__every__echo').run({ message: 'still here' }, context())).toEqual({ isError: false, content: 'Echo: still here' });
  }, 60_000);

  it('reports a server that never answers its start as failed after MCP_TIMEOUT, and leaves no process of it', async () => {
    const marker = `mute-${process.pid}`;
    const mute = { type: 'stdio' as const, command: 'sleep', args: ['600'], env: { AGENTLOOP_TEST_MARKER: marker } };
    const servers = start({ mute }, { cwd: process.cwd(), env: { ...process.env, MCP_TIMEOUT: '1000' } });
    await servers.ready();
    expect(servers.states()).toEqual([{ name: 'mute', status: 'failed', error: expect.stringContaining('no answer within 1000 ms') }]);
    expect(servers.tools()).toEqual([]);
    await waitFor(() => processesMarked(marker).length === 0);
  }, 60_000);

  it('stops every server on close: no process of theirs is left', async () => {
    const marker = `close-${process.pid}`;
    const servers = startMcpServers({ a: everything(marker), b: everything(marker) }, { cwd: process.cwd() });
    await servers.ready();
    expect(processesMarked(marker).length).toBeGreaterThanOrEqual(2);
    await servers.close();
    await waitFor(() => processesMarked(marker).length === 0);
    expect((await toolNamed(servers.tools(), 'mcp__a__echo').run({ message: 'x' }, context())).isError).toBe(true);
  }, 60_000);
});
