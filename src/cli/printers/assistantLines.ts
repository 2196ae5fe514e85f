/**
 * Claude Code's `assistant` lines: one per content block of a reply (the same message id on each), each holding the
 * message with that block alone. With `--include-partial-messages` a block's line comes as soon as the block is
 * complete, before its `content_block_stop` stream_event (Claude Code's order, recorded in test/cli/sdk/claudeCode.json);
 * otherwise when the reply is in. A reply's blocks are printed once: those the stream completed are not printed again.
 */
import type { ContentBlock } from '../../core/messages.js';

/** The message of an assistant line, but its content. */
export interface ReplyHead {
  id?: string;
  model: string;
  stop_reason: string | null;
  usage: unknown;
}

/** `requestId`: the API's request id of the reply (Claude Code's `request_id`), when the model call has one. */
type Write = (head: ReplyHead, block: ContentBlock, requestId: string | undefined) => void;

interface StreamEvent {
  type?: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: unknown };
  content_block?: Record<string, unknown>;
  delta?: { type?: string; text?: string; thinking?: string; signature?: string; partial_json?: string };
}

/** A block as the stream built it: its start, the text of its deltas, and a tool input's JSON. */
function grow(block: Record<string, unknown>, delta: NonNullable<StreamEvent['delta']>, json: string[]): void {
  if (delta.type === 'text_delta') block.text = String(block.text ?? '') + (delta.text ?? '');
  else if (delta.type === 'thinking_delta') block.thinking = String(block.thinking ?? '') + (delta.thinking ?? '');
  else if (delta.type === 'signature_delta') block.signature = delta.signature ?? '';
  else if (delta.type === 'input_json_delta') json.push(delta.partial_json ?? '');
}

function finished(block: Record<string, unknown>, json: string[]): ContentBlock {
  if (block.type !== 'tool_use' && block.type !== 'server_tool_use') return block as unknown as ContentBlock;
  const text = json.join('');
  let input: unknown = block.input ?? {};
  try {
    if (text) input = JSON.parse(text);
  } catch {
    // A cut input: the reply's own message (or its refusal) tells what became of it.
  }
  return { ...block, input } as unknown as ContentBlock;
}

export function assistantLines(write: Write) {
  let head: ReplyHead | undefined;
  let requestId: string | undefined; // of the reply the stream is building
  let building: { block: Record<string, unknown>; json: string[] } | undefined;
  let printed = 0; // blocks of the current reply already printed from the stream
  return {
    /** Before the stream_event line of `raw`: a block that stops gets its assistant line first. */
    onStreamEvent(raw: unknown, id?: string): void {
      const event = raw as StreamEvent;
      if (event.type === 'message_start') {
        const m = event.message ?? {};
        head = { ...(m.id ? { id: m.id } : {}), model: m.model ?? '', stop_reason: null, usage: m.usage };
        requestId = id;
        printed = 0;
      } else if (event.type === 'content_block_start') building = { block: { ...event.content_block }, json: [] };
      else if (event.type === 'content_block_delta' && building && event.delta) grow(building.block, event.delta, building.json);
      else if (event.type === 'content_block_stop' && building && head) {
        write(head, finished(building.block, building.json), requestId);
        building = undefined;
        printed += 1;
      }
    },
    /** The reply is in: its blocks the stream did not print, one line each. */
    onReply(reply: ReplyHead, content: ContentBlock[], id?: string): void {
      for (const block of content.slice(head ? printed : 0)) write(reply, block, id);
      head = undefined;
      building = undefined;
      printed = 0;
    },
  };
}
