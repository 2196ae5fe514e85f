/**
 * Streamable HTTP (`type: "http"`) with each POST's answer stream watched. A server that dies after taking a call
 * cuts the event stream its answer was to come on; the MCP SDK's client only reports that through `onerror` (and
 * resumes only a stream that carried event ids), so the call would wait until `MCP_TOOL_TIMEOUT` (about 28 hours by
 * default). Here a POST's event stream that errors, or ends with no event id to resume from, gets one more event per
 * request it carried: a JSON-RPC error answer ("the server's answer was cut: …"). It is added at the end of the same
 * stream, so the SDK reads it after every answer that did arrive; one for a request already answered is dropped.
 * Only the calls of the cut stream fail: the client stays connected for the next call. An event over
 * MAX_MESSAGE_BYTES (./lines.ts, as for stdio) cuts the stream the same way, and a JSON answer over it fails its POST:
 * the SDK would hold any size.
 */
import { randomUUID } from 'node:crypto';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_MESSAGE_BYTES } from './lines.js';

const overBound = `its answer was over the ${MAX_MESSAGE_BYTES / 1024 / 1024} MB agentloop reads of one MCP message; ask the tool for less (a page, a range, a filter)`;

type Id = string | number;

export function streamableHttp(url: URL, requestInit: RequestInit): Transport {
  const pending = new Set<Id>();
  const mark = randomUUID();
  const watched = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const ids = init?.method === 'POST' ? requestIds(init.body) : [];
    for (const id of ids) pending.add(id);
    const response = await fetch(input, init);
    const eventStream = response.headers.get('content-type')?.startsWith('text/event-stream');
    if (!response.ok || !response.body) return response;
    const { status, statusText, headers } = response;
    if (!eventStream) return new Response(boundedBody(response.body), { status, statusText, headers });
    if (ids.length === 0) return response;
    return new Response(watchedBody(response.body, ids, mark), { status, statusText, headers });
  };
  return new CutAnswers(new StreamableHTTPClientTransport(url, { requestInit, fetch: watched }), pending, mark);
}

/** The ids of the JSON-RPC requests in a POST's body (one message or a batch). */
function requestIds(body: unknown): Id[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as { id?: unknown; method?: unknown }[];
    return messages.filter((m) => typeof m?.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')).map((m) => m.id as Id);
  } catch {
    return [];
  }
}

/** `body`, failing once it passes MAX_MESSAGE_BYTES (a JSON answer is read whole). */
function boundedBody(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let bytes = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.length;
        if (bytes > MAX_MESSAGE_BYTES) controller.error(new Error(`the server's answer was cut: ${overBound}`));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/** `body` as it arrives; when it errors, or ends without an event id the SDK could resume from, an error answer per id follows. */
function watchedBody(body: ReadableStream<Uint8Array>, ids: Id[], mark: string): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let resumable = false;
  let tail = '';
  /** Bytes of the event being read (since the last blank line). */
  let eventBytes = 0;
  const cut = (controller: ReadableStreamDefaultController<Uint8Array>, why: string) => {
    const events = ids.map((id) => {
      const answer = { jsonrpc: '2.0', id, error: { code: ErrorCode.ConnectionClosed, message: `the server's answer was cut: ${why}`, data: mark } };
      return `event: message\ndata: ${JSON.stringify(answer)}\n\n`;
    });
    // The blank lines end an event the cut left half-written, so the SDK reads the answers as events of their own.
    controller.enqueue(new TextEncoder().encode(`\n\n${events.join('')}`));
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        return cut(controller, reasonOf(error));
      }
      if (chunk.done) return resumable ? controller.close() : cut(controller, 'the stream ended before it');
      const text = tail + decoder.decode(chunk.value, { stream: true });
      if (/(^|[\r\n])id:/.test(text)) resumable = true;
      const end = Math.max(text.lastIndexOf('\n\n'), text.lastIndexOf('\r\n\r\n'));
      eventBytes = end === -1 ? eventBytes + chunk.value.length : Buffer.byteLength(text.slice(end));
      if (eventBytes > MAX_MESSAGE_BYTES) {
        await reader.cancel().catch(() => undefined);
        return cut(controller, overBound);
      }
      tail = text.slice(-3);
      controller.enqueue(chunk.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  return cause ? `${message} (${cause})` : message;
}

/** The SDK's transport, its answers passed on but for a cut-stream answer to a request already answered. */
class CutAnswers implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  constructor(
    private readonly inner: StreamableHTTPClientTransport,
    private readonly pending: Set<Id>,
    private readonly mark: string,
  ) {
    inner.onmessage = (message: JSONRPCMessage) => this.answer(message);
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  private answer(message: JSONRPCMessage): void {
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) {
      const ours = 'error' in message && message.error.data === this.mark;
      if (ours && !this.pending.has(message.id)) return;
      this.pending.delete(message.id);
      if (ours) delete message.error.data;
    }
    this.onmessage?.(message);
  }

  start = (): Promise<void> => this.inner.start();
  send: Transport['send'] = (message, options) => this.inner.send(message, options);
  setProtocolVersion = (version: string): void => this.inner.setProtocolVersion(version);
  close = (): Promise<void> => this.inner.close();
  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }
}
