import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, StopReason, ToolUseBlock } from '../core/messages.js';
import type { Usage } from '../core/usage.js';

/** A block being streamed: the block so far and, for tool input, the JSON text so far. */
interface OpenBlock {
  block: Anthropic.ContentBlock;
  json: string;
}

/**
 * Builds a reply from the raw stream events of `messages.create({ stream: true })`, one event at
 * a time and with no copying: text and JSON deltas are appended, tool input is parsed once, at
 * the block's `content_block_stop`. Only blocks that got their `content_block_stop` are complete;
 * a block cut off (by max_tokens or a broken stream) never makes it into `content()`.
 */
export class ReplyBuilder {
  private readonly open: Array<OpenBlock | undefined> = [];
  private readonly complete: Array<ContentBlock | undefined> = [];
  /** Some content block has started: a failure from here on is a failure mid-stream. */
  started = false;
  /** `message_stop` arrived: the reply is whole. */
  stopped = false;
  stopReason: StopReason | null = null;
  /** The message id and model from `message_start`. */
  id: string | undefined;
  model: string | undefined;
  readonly usage: Usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

  /**
   * Takes one event. Returns the text of a `text_delta` (for showing it live) or the tool_use
   * block completed by a `content_block_stop`; otherwise `undefined`.
   */
  add(event: Anthropic.RawMessageStreamEvent): string | ToolUseBlock | undefined {
    switch (event.type) {
      case 'message_start':
        this.id = event.message.id;
        this.model = event.message.model;
        this.addUsage(event.message.usage);
        return undefined;
      case 'content_block_start':
        this.started = true;
        this.open[event.index] = { block: { ...event.content_block } as Anthropic.ContentBlock, json: '' };
        return undefined;
      case 'content_block_delta':
        return this.addDelta(event.index, event.delta);
      case 'content_block_stop':
        return this.close(event.index);
      case 'message_delta':
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.addUsage(event.usage);
        return undefined;
      case 'message_stop':
        this.stopped = true;
        return undefined;
      default:
        return undefined;
    }
  }

  /** The complete blocks, in stream order. */
  content(): ContentBlock[] {
    return this.complete.filter((b): b is ContentBlock => b !== undefined);
  }

  /** Some block started but never got its `content_block_stop`. */
  droppedIncompleteBlock(): boolean {
    return this.open.some((b) => b !== undefined);
  }

  private addDelta(index: number, delta: Anthropic.RawContentBlockDelta): string | undefined {
    const open = this.open[index];
    if (!open) throw new StreamProtocolError(`a ${delta.type} for block ${index}, which is not open`);
    const block = open.block;
    switch (delta.type) {
      case 'text_delta':
        if (block.type === 'text') block.text += delta.text;
        return delta.text;
      case 'input_json_delta':
        open.json += delta.partial_json;
        return undefined;
      case 'thinking_delta':
        if (block.type === 'thinking') block.thinking += delta.thinking;
        return undefined;
      case 'signature_delta':
        if (block.type === 'thinking') block.signature = delta.signature;
        return undefined;
      default:
        // citations_delta and anything newer: not sent back to the model, so not kept.
        return undefined;
    }
  }

  private close(index: number): ToolUseBlock | undefined {
    const open = this.open[index];
    if (!open) throw new StreamProtocolError(`content_block_stop for block ${index}, which is not open`);
    this.open[index] = undefined;
    const block = open.block;
    if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      block.input = open.json === '' ? block.input : parseInput(open.json, index);
    }
    const param = toParam(block);
    this.complete[index] = param;
    return param.type === 'tool_use' ? param : undefined;
  }

  /** Usage arrives in `message_start` and again, cumulative, in `message_delta`: the last count wins. */
  private addUsage(usage: Partial<Record<keyof Usage, number | null>> | null | undefined): void {
    if (!usage) return;
    for (const key of Object.keys(this.usage) as Array<keyof Usage>) {
      const value = usage[key];
      if (typeof value === 'number') this.usage[key] = value;
    }
  }
}

/** The stream broke the protocol (a delta for a block never started, tool input that is not JSON). */
export class StreamProtocolError extends Error {
  override readonly name = 'StreamProtocolError';
}

function parseInput(json: string, index: number): unknown {
  try {
    return JSON.parse(json);
  } catch {
    throw new StreamProtocolError(`the input of tool_use block ${index} is not valid JSON`);
  }
}

/** A reply block in the shape the API takes back in `messages`. */
function toParam(block: Anthropic.ContentBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    default:
      // Server-side tool blocks are sent back exactly as they came.
      return block as unknown as ContentBlock;
  }
}
