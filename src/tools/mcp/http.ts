/**
 * An HTTP MCP server's transport: streamable HTTP (`type: "http"`) or the older HTTP+SSE (`type: "sse"`), the SDK's
 * own, with the config's headers on every request. Loaded only for a run that has one.
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpHttpConfig } from './config.js';

export function httpTransport(config: McpHttpConfig): Transport {
  const url = new URL(config.url);
  const requestInit = { headers: config.headers };
  return config.type === 'sse' ? new SSEClientTransport(url, { requestInit }) : new StreamableHTTPClientTransport(url, { requestInit });
}
