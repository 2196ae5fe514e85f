/**
 * tools/mcp/relay.ts: an MCP server reached through a function that answers each message (as the Agent SDK's
 * in-process servers are, through `mcp_message` control requests), connected by startMcpServers as any server is.
 * The server here is the MCP SDK's own McpServer behind an in-memory pair; the relay is the subject, so it is the
 * test's: one that answers as the host does, one that answers garbage, one that fails.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { RelayTransport, type McpRelay } from '../../../src/tools/mcp/relay.js';
import { startMcpServers, type McpServers } from '../../../src/tools/mcp/servers.js';

const started: McpServers[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

/** A relay to a real McpServer: each request answered by the server's response of the same id, as the Agent SDK does. */
async function hostRelay(): Promise<{ relay: McpRelay; seen: JSONRPCMessage[] }> {
  const server = new McpServer({ name: 'host', version: '1.0.0' });
  server.registerTool('add', { description: 'Adds.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'sum' }] }));
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  await server.connect(theirs);
  const waiting = new Map<unknown, (message: JSONRPCMessage) => void>();
  ours.onmessage = (message) => {
    if ('id' in message) waiting.get(message.id)?.(message);
  };
  await ours.start();
  const seen: JSONRPCMessage[] = [];
  const relay: McpRelay = async (message) => {
    seen.push(message);
    if (!('method' in message && 'id' in message)) {
      await ours.send(message);
      return { jsonrpc: '2.0', result: {}, id: 0 }; // the Agent SDK's answer to a notification
    }
    const answer = new Promise<JSONRPCMessage>((resolve) => waiting.set(message.id, resolve));
    await ours.send(message);
    return answer;
  };
  return { relay, seen };
}

function start(relay: McpRelay, env: Record<string, string> = {}): McpServers {
  const servers = startMcpServers({ host: { type: 'transport', transport: new RelayTransport(relay) } }, { cwd: process.cwd(), env: { PATH: process.env.PATH, ...env } });
  started.push(servers);
  return servers;
}

const call = (servers: McpServers) => servers.tools()[0]!.run({}, { signal: new AbortController().signal, cwd: process.cwd() });

describe('an MCP server through a relay', () => {
  it('connects as any server: initialize, the initialized notification, tools/list; a call answered by the server', async () => {
    const { relay, seen } = await hostRelay();
    const servers = start(relay);
    await servers.ready();
    expect(servers.states()).toEqual([{ name: 'host', status: 'connected' }]);
    expect(servers.tools().map((t) => t.name)).toEqual(['mcp__host__add']);
    expect(await call(servers)).toEqual({ isError: false, content: 'sum' });
    expect(seen.map((m) => ('method' in m ? m.method : 'response'))).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call']);
  });

  it('gives an is_error result at once when the answer to a call is not its response, or the relay fails; later calls work', async () => {
    const { relay } = await hostRelay();
    let mode: 'garbage' | 'wrong id' | 'fail' | 'pass' = 'pass';
    const servers = start(async (message) => {
      if (!('method' in message) || message.method !== 'tools/call' || mode === 'pass') return relay(message);
      if (mode === 'garbage') return 'not json-rpc';
      if (mode === 'wrong id') return { jsonrpc: '2.0', id: 'other', result: { content: [] } };
      throw new Error('the host has gone');
    }, { MCP_TOOL_TIMEOUT: '600000' }); // were an answer dropped, the call would wait this long and the test time out
    await servers.ready();
    mode = 'garbage';
    expect(await call(servers)).toEqual({ isError: true, content: expect.stringMatching(/^MCP server host: tool add failed: .*the answer to tools\/call is not its JSON-RPC response: "not json-rpc"/) });
    mode = 'wrong id';
    expect(await call(servers)).toEqual({ isError: true, content: expect.stringMatching(/not its JSON-RPC response: \{"jsonrpc":"2.0","id":"other"/) });
    mode = 'fail';
    expect(await call(servers)).toEqual({ isError: true, content: expect.stringMatching(/tools\/call could not be relayed: the host has gone/) });
    mode = 'pass';
    expect(await call(servers)).toEqual({ isError: false, content: 'sum' });
  });

  it('reports a server whose relay fails at start as failed, with why', async () => {
    const servers = start(async () => {
      throw new Error('no such server');
    });
    await servers.ready();
    expect(servers.states()).toEqual([{ name: 'host', status: 'failed', error: expect.stringMatching(/initialize could not be relayed: no such server/) }]);
    expect(servers.tools()).toEqual([]);
  });
});
