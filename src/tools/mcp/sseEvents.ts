/**
 * The event stream of an HTTP+SSE MCP server (`type: "sse"`), read with bounded memory, as a stdio server's lines are
 * (./lines.ts). The server answers every request on this one stream, and the SDK's EventSource held an event of any
 * size (a 100 MB answer went to the model whole). Here each event is held until its blank line, up to
 * MAX_MESSAGE_BYTES; past that only its two ends are kept and the rest counted, and when it ends it is replaced by the
 * answer `replace` gives (the call it was for answered with why): the session goes on. An event still without end
 * past MAX_LINE_BYTES ends the stream with why (the transport then closes, ending the calls under way).
 */
import { endlessText, firstBytes, lastBytes, MAX_LINE_BYTES, MAX_MESSAGE_BYTES } from './lines.js';

/** The text that stands for an oversized event (`bytes` long, its first and last bytes): events of the same stream. */
export type ReplaceEvent = (bytes: number, head: Buffer, tail: Buffer) => string;

export function boundedEvents(body: ReadableStream<Uint8Array>, replace: ReplaceEvent): ReadableStream<Uint8Array> {
  let held: Buffer[] = [];
  let size = 0;
  let over: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  let lineEmpty = true;
  let afterCR = false;
  let broken = false;
  const take = (part: Buffer, controller: TransformStreamDefaultController<Uint8Array>) => {
    if (part.length === 0) return;
    if (over) {
      over.bytes += part.length;
      over.tail = lastBytes([over.tail, part]);
    } else if (size + part.length <= MAX_MESSAGE_BYTES) {
      held.push(part);
      size += part.length;
    } else {
      over = { bytes: size + part.length, head: firstBytes([...held, part]), tail: lastBytes([...held, part]) };
      held = [];
      size = 0;
    }
    if (over && over.bytes > MAX_LINE_BYTES) {
      broken = true;
      controller.error(new Error(endlessText(over.bytes)));
    }
  };
  const endEvent = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (over) controller.enqueue(new TextEncoder().encode(replace(over.bytes, over.head, over.tail)));
    else if (size > 0) controller.enqueue(Buffer.concat(held));
    held = [];
    size = 0;
    over = undefined;
  };
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        let start = 0;
        for (let i = 0; i < bytes.length && !broken; i++) {
          const b = bytes[i];
          if (b === 10 && afterCR) {
            afterCR = false;
            continue;
          }
          afterCR = b === 13;
          if (b !== 10 && b !== 13) {
            lineEmpty = false;
            continue;
          }
          if (lineEmpty) {
            take(bytes.subarray(start, i + 1), controller);
            endEvent(controller);
            start = i + 1;
          }
          lineEmpty = true;
        }
        if (!broken) take(bytes.subarray(start), controller);
      },
    }),
  );
}

/** The JSON of an event's data as far as `head` holds it (after its first `data:` field). */
export function dataOf(head: Buffer): Buffer {
  const text = head.toString('utf8');
  const found = /(^|[\r\n])data: ?/.exec(text);
  return found ? Buffer.from(text.slice(found.index + found[0].length)) : head;
}
