/**
 * An HTTP MCP server's transport: streamable HTTP (`type: "http"`) or the older HTTP+SSE (`type: "sse"`), the SDK's
 * own, with the config's headers on every request. Loaded only for a run that has one. A streamable HTTP call whose
 * answer stream is cut ends at once with an error (cutAnswers.ts).
 *
 * An SSE session lives as long as its event stream: the server answers every request on it, and forgets the session
 * when it closes. The SDK's SSE client only reports a lost stream (and its EventSource reconnects to a session that
 * was never initialized), so a call whose server died after taking it would wait for its answer until
 * `MCP_TOOL_TIMEOUT` (about 28 hours by default). Here a lost stream closes the transport: the calls under way end
 * at once with an error, and later ones say the server is not connected (as a stdio server that exited). Its
 * events are read with bounded memory (./sseEvents.ts): one over the bound answers its call with why.
 */
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpHttpConfig } from './config.js';
import { streamableHttp } from './cutAnswers.js';
import { answerFor, idOfLine, oversizedText } from './lines.js';
import { boundedEvents, dataOf } from './sseEvents.js';

type Id = string | number;

export function httpTransport(config: McpHttpConfig): Transport {
  const url = new URL(config.url);
  const requestInit = { headers: config.headers };
  if (config.type !== 'sse') return streamableHttp(url, requestInit);
  const pending = new Map<Id, string>();
  return new SseSession(new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: boundedFetch(pending) } }), pending);
}

/** The event stream's fetch, its events bounded: one over the bound stands for an answer to the request it was for. */
function boundedFetch(pending: Map<Id, string>) {
  const replace = (bytes: number, head: Buffer, tail: Buffer): string => {
    const id = idOfLine(dataOf(head), tail);
    const ids = id !== undefined && pending.has(id) ? [id] : pending.size === 1 ? [...pending.keys()] : [];
    const text = oversizedText(bytes, head, tail);
    return ids.map((each) => `event: message\ndata: ${JSON.stringify(answerFor(each, pending.get(each), text))}\n\n`).join('');
  };
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (!response.ok || !response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
    const { status, statusText, headers } = response;
    return new Response(boundedEvents(response.body, replace), { status, statusText, headers });
  };
}

/** The SDK's SSE client transport, closed when its event stream is lost once started. */
class SseSession implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private started = false;

  constructor(
    private readonly inner: SSEClientTransport,
    private readonly pending: Map<Id, string>,
  ) {
    inner.onmessage = (message: JSONRPCMessage) => {
      if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) pending.delete(message.id);
      this.onmessage?.(message);
    };
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
    if ('method' in message && 'id' in message && message.id !== undefined) this.pending.set(message.id, message.method);
    return this.inner.send(message);
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
