/**
 * SSE frames of the Messages API stream (DESIGN.md §4), built by hand: for a server that breaks the protocol
 * (messagesServer.ts `rewrite`) and for the stream reader's property test.
 */
import type { SseFrame } from './messagesServer.js';

type Data = Record<string, unknown>;

export const frame = (data: Data): SseFrame => ({ event: String(data.type), data });

export const blockStart = (index: number, block: Data): SseFrame => frame({ type: 'content_block_start', index, content_block: block });
export const blockDelta = (index: number, delta: Data): SseFrame => frame({ type: 'content_block_delta', index, delta });
export const blockStop = (index: number): SseFrame => frame({ type: 'content_block_stop', index });

/** A whole tool_use block at `index`: its start, its input in one `input_json_delta`, its stop. */
export function toolUseFrames(index: number, id: string, name: string, input: unknown): SseFrame[] {
  return [
    blockStart(index, { type: 'tool_use', id, name, input: {} }),
    blockDelta(index, { type: 'input_json_delta', partial_json: JSON.stringify(input) }),
    blockStop(index),
  ];
}

/** A whole text block at `index`. */
export function textFrames(index: number, text: string): SseFrame[] {
  return [blockStart(index, { type: 'text', text: '' }), blockDelta(index, { type: 'text_delta', text }), blockStop(index)];
}

/** Where the `message_delta` frame is (the end of the message: `message_delta`, `message_stop`). */
export function endOf(frames: readonly SseFrame[]): number {
  const at = frames.findIndex((f) => f.event === 'message_delta');
  if (at < 0) throw new Error('no message_delta among the frames');
  return at;
}

/** `frames` with `extra` put in before `message_delta`. */
export function beforeEnd(frames: readonly SseFrame[], extra: readonly SseFrame[]): SseFrame[] {
  const at = endOf(frames);
  return [...frames.slice(0, at), ...extra, ...frames.slice(at)];
}
