/**
 * A stdio MCP server's JSON-RPC messages, one per line, read with bounded memory. A line is held until its newline up
 * to MAX_MESSAGE_BYTES; past that only its first and last KEPT_BYTES are kept and the rest is counted, so a 50 MB
 * answer costs no more than a 16 MB one; the line is then reported `oversized` when its newline comes (the caller
 * answers the call it was for). A line still without a newline past MAX_LINE_BYTES is `endless`: reading stops (the
 * caller stops the server). The MCP SDK's ReadBuffer held everything up to 10 MB and then threw from a stream
 * listener: an uncaught exception that ended agentloop, the call never answered.
 */
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The largest message read whole. Above the 10 MB of the MCP SDK's own reader, so that an image a little over the
 * API's 5 MB (about 7 MB as base64 in JSON) is still read and then named and left out (./content.ts) rather than
 * refused as a message; below the API's 32 MB request limit, which a result this size would already break.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** How long a line may grow without a newline (only counted, not held) before the server is taken to be broken. */
export const MAX_LINE_BYTES = 4 * MAX_MESSAGE_BYTES;
/** What is kept of each end of an oversized line, to say what it was and for which call. */
export const KEPT_BYTES = 8 * 1024;

export type LineEvent =
  | { kind: 'message'; message: JSONRPCMessage }
  | { kind: 'invalid'; error: Error }
  | { kind: 'oversized'; bytes: number; head: Buffer; tail: Buffer }
  | { kind: 'endless'; bytes: number; head: Buffer };

interface Over {
  bytes: number;
  head: Buffer;
  tail: Buffer;
}

export class BoundedLines {
  private chunks: Buffer[] = [];
  private size = 0;
  private over: Over | undefined;
  private stopped = false;

  constructor(private readonly limits: { message: number; line: number } = { message: MAX_MESSAGE_BYTES, line: MAX_LINE_BYTES }) {}

  /** Takes a chunk of the stream; `emit` gets each line it completes, in order. */
  push(chunk: Buffer, emit: (event: LineEvent) => void): void {
    let rest = chunk;
    while (!this.stopped && rest.length > 0) {
      const newline = rest.indexOf(10);
      this.take(newline === -1 ? rest : rest.subarray(0, newline));
      if (this.stopped) return emit({ kind: 'endless', bytes: this.over?.bytes ?? 0, head: this.over?.head ?? Buffer.alloc(0) });
      if (newline === -1) return;
      rest = rest.subarray(newline + 1);
      this.endLine(emit);
    }
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
    this.over = undefined;
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.over) {
      this.over.bytes += part.length;
      this.over.tail = lastBytes([this.over.tail, part]);
      if (this.over.bytes > this.limits.line) this.stopped = true;
      return;
    }
    if (this.size + part.length <= this.limits.message) {
      this.chunks.push(part);
      this.size += part.length;
      return;
    }
    const all = [...this.chunks, part];
    this.over = { bytes: this.size + part.length, head: firstBytes(all), tail: lastBytes(all) };
    this.chunks = [];
    this.size = 0;
    if (this.over.bytes > this.limits.line) this.stopped = true;
  }

  private endLine(emit: (event: LineEvent) => void): void {
    const over = this.over;
    const line = over ? '' : Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.clear();
    if (over) return emit({ kind: 'oversized', ...over });
    if (line.trim() === '') return;
    try {
      emit({ kind: 'message', message: deserializeMessage(line) });
    } catch (error) {
      emit({ kind: 'invalid', error: error as Error });
    }
  }
}

/** The first KEPT_BYTES of `parts`, copied (the parts, perhaps large, are not retained). */
export function firstBytes(parts: Buffer[]): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (const part of parts) {
    if (size >= KEPT_BYTES) break;
    const piece = part.subarray(0, KEPT_BYTES - size);
    out.push(piece);
    size += piece.length;
  }
  return Buffer.from(Buffer.concat(out));
}

/** The last KEPT_BYTES of `parts`, copied. */
export function lastBytes(parts: Buffer[]): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (let i = parts.length - 1; i >= 0 && size < KEPT_BYTES; i--) {
    const part = parts[i] as Buffer;
    const piece = part.subarray(Math.max(0, part.length - (KEPT_BYTES - size)));
    out.unshift(piece);
    size += piece.length;
  }
  return Buffer.from(Buffer.concat(out));
}

/** The JSON-RPC id of an oversized line, from its start (`{"jsonrpc":"2.0","id":7,...`) or its end (`...,"id":7}`). */
export function idOfLine(head: Buffer, tail: Buffer): string | number | undefined {
  const value = (text: string | undefined) => (text === undefined ? undefined : (JSON.parse(text) as string | number));
  const start = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(head.toString('utf8'));
  if (start) return value(start[1]);
  const end = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*\r?$/.exec(tail.toString('utf8'));
  return end ? value(end[1]) : undefined;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** What the model is told of an answer too large to read: its size, the bound, what to do, its two ends. */
export function oversizedText(bytes: number, head: Buffer, tail: Buffer): string {
  const shown = 2000;
  const start = head.toString('utf8').slice(0, shown);
  const end = tail.toString('utf8').slice(-shown);
  return (
    `The server's answer was ${mb(bytes)} (${bytes} bytes), over the ${mb(MAX_MESSAGE_BYTES)} agentloop reads of one MCP message, ` +
    'so it was not read. Ask the tool for less (a page, a range, a filter, a smaller image). Its first and last characters, as sent:\n' +
    `${start}\n[... ${bytes - Buffer.byteLength(start) - Buffer.byteLength(end)} bytes omitted ...]\n${end}`
  );
}

/** Why a server that sent a line without an end was stopped. */
export function endlessText(bytes: number): string {
  return `the server sent a line of over ${mb(bytes)} without a newline (an MCP message is at most ${mb(MAX_MESSAGE_BYTES)} here): agentloop stopped it`;
}

/** The answer agentloop gives for the server to request `id` (`method`): a tool call an error result the model reads, others an error. */
export function answerFor(id: string | number, method: string | undefined, text: string): JSONRPCMessage {
  return method === 'tools/call'
    ? { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }
    : { jsonrpc: '2.0', id, error: { code: -32603, message: text } };
}
