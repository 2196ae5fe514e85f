/**
 * An HTTP MCP server's transport: streamable HTTP (`type: "http"`) or the older HTTP+SSE (`type: "sse"`), the SDK's
 * own, with the config's headers on every request. Loaded only for a run that has one. A streamable HTTP call whose
 * answer stream is cut ends at once with an error (cutAnswers.ts).
 *
 * An SSE session lives as long as its event stream: the server answers every request on it, and forgets the session
 * when it closes. The SDK's SSE client only reports a lost stream (and its EventSource reconnects to a session that
 * was never initialized), so a call whose server died after taking it would wait for its answer until
 * `MCP_TOOL_TIMEOUT` (about 28 hours by default). Here a lost stream closes the transport: the calls under way end
 * at once with an error, and later ones say the server is not connected (as a stdio server that exited).
 */
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpHttpConfig } from './config.js';
import { streamableHttp } from './cutAnswers.js';

export function httpTransport(config: McpHttpConfig): Transport {
  const url = new URL(config.url);
  const requestInit = { headers: config.headers };
  return config.type === 'sse' ? new SseSession(new SSEClientTransport(url, { requestInit })) : streamableHttp(url, requestInit);
}

/** The SDK's SSE client transport, closed when its event stream is lost once started. */
class SseSession implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private started = false;

  constructor(private readonly inner: SSEClientTransport) {
    inner.onmessage = (message: JSONRPCMessage) => this.onmessage?.(message);
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => {
      this.onerror?.(error);
      if (this.started && error instanceof SseError) void inner.close();
    };
  }

  async start(): Promise<void> {
    await this.inner.start();
    this.started = true;
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
