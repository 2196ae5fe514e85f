/**
 * The host's in-process MCP servers (the SDK's `createSdkMcpServer`), connected as any MCP server is
 * (tools/mcp/connect.ts through startMcpServers): each JSON-RPC message travels as an `mcp_message` control request and
 * its answer comes back in `{ mcp_response }` (tools/mcp/relay.ts). So `initialize`, every page of `tools/list`, the
 * start-up bound (`MCP_TIMEOUT`), each call's bound (`MCP_TOOL_TIMEOUT`) and the MCP SDK's check of each result hold
 * for them as for a `--mcp-config` server; a server that fails is `failed` with why, its tools left out. The model sees
 * each tool as `mcp__SERVER__TOOL`, as Claude Code names MCP tools.
 */
import { RelayTransport } from '../../tools/mcp/relay.js';
import { startMcpServers, type McpServers } from '../../tools/mcp/servers.js';
import type { ControlChannel } from './channel.js';
import type { SdkServer } from './initialize.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A transport to the host's server `server`: each message sent as an `mcp_message` request, answered with its `mcp_response`. */
function hostTransport(channel: ControlChannel, server: string): RelayTransport {
  return new RelayTransport(async (message) => {
    const answer = await channel.ask('mcp_message', { server_name: server, message });
    if (!isObject(answer.mcp_response)) throw new Error('the host answered with no mcp_response');
    return answer.mcp_response;
  });
}

/** Starts (connects) every in-process server of the host's; `ready()` settles once each is connected or failed. */
export function sdkServers(channel: ControlChannel, servers: SdkServer[], cwd: string): McpServers {
  const specs = Object.fromEntries(servers.map(({ name }) => [name, { type: 'transport' as const, transport: hostTransport(channel, name) }]));
  return startMcpServers(specs, { cwd });
}
