import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, StopReason, ToolUseBlock } from '../core/messages.js';
import { tokenCountProblem, zeroUsage, type Usage } from '../core/usage.js';
import { isBlank } from '../history/validate.js';
import {
  checkBlockStart,
  checkedDelta,
  fieldsOf,
  indexOf,
  isFields,
  nextPhase,
  StreamProtocolError,
  stringOf,
  type Fields,
  type Phase,
} from './protocol.js';

export { StreamProtocolError } from './protocol.js';

/** The block being streamed: the block so far and, for tool input, the JSON text so far. */
interface OpenBlock {
  index: number;
  block: Record<string, unknown> & { type: string };
  json: string;
}

/**
 * Reads a reply from the raw stream events of `messages.create({ stream: true })`, one event at a time and with no
 * copying, by the protocol of protocol.ts: an event the protocol does not allow where it comes throws a
 * `StreamProtocolError` (the reply is refused, never appended). Text and JSON deltas are appended; tool input is
 * parsed once, at the block's `content_block_stop`. Only blocks that got their `content_block_stop` are complete; a
 * block cut off (by max_tokens) never makes it into `content()`, nor does a text block with nothing but white space
 * (the API refuses those in a request).
 */
export class ReplyBuilder {
  private phase: Phase = 'awaitingStart';
  /** The block open now, if any; blocks come one at a time. */
  private open: OpenBlock | undefined;
  /** How many blocks have started: the index the next one must have. */
  private nextIndex = 0;
  private readonly complete: ContentBlock[] = [];
  /** Some content block has started: a failure from here on is a failure mid-stream. */
  started = false;
  /** `message_stop` arrived: the reply is whole. */
  get stopped(): boolean {
    return this.phase === 'stopped';
  }
  stopReason: StopReason | null = null;
  /** The message id and model from `message_start`. */
  id: string | undefined;
  model: string | undefined;
  readonly usage: Usage = zeroUsage();

  /**
   * Takes one event. Returns the text of a `text_delta` (for showing it live) or the tool_use block completed by a
   * `content_block_stop`; otherwise `undefined`.
   */
  add(raw: Anthropic.RawMessageStreamEvent | unknown): string | ToolUseBlock | undefined {
    if (!isFields(raw) || typeof raw.type !== 'string') throw new StreamProtocolError('an event that is not an object with a type');
    const next = nextPhase(this.phase, raw.type);
    const out = this.take(raw);
    this.phase = next;
    return out;
  }

  /** The complete blocks, in stream order. */
  content(): ContentBlock[] {
    return [...this.complete];
  }

  /** Some block started but never got its `content_block_stop`. */
  droppedIncompleteBlock(): boolean {
    return this.open !== undefined;
  }

  private take(event: Fields): string | ToolUseBlock | undefined {
    switch (event.type) {
      case 'message_start':
        return this.startMessage(fieldsOf(event, 'message', 'message_start'));
      case 'content_block_start':
        return this.startBlock(indexOf(event), fieldsOf(event, 'content_block', 'content_block_start'));
      case 'content_block_delta':
        return this.addDelta(indexOf(event), fieldsOf(event, 'delta', 'content_block_delta'));
      case 'content_block_stop':
        return this.close(indexOf(event));
      case 'message_delta':
        return this.endMessage(fieldsOf(event, 'delta', 'message_delta'), event.usage);
      default:
        // ping, message_stop, and event types newer than this reader: nothing to keep.
        return undefined;
    }
  }

  private startMessage(message: Fields): undefined {
    if (message.content !== undefined && !(Array.isArray(message.content) && message.content.length === 0)) {
      throw new StreamProtocolError('message_start carries content: blocks come as content_block_start');
    }
    this.id = stringOf(message, 'id', 'message_start', true);
    this.model = stringOf(message, 'model', 'message_start', true);
    this.addUsage(message.usage);
    return undefined;
  }

  private startBlock(index: number, block: Fields): undefined {
    if (this.open) throw new StreamProtocolError(`block ${index} starts while block ${this.open.index} is open`);
    if (index !== this.nextIndex) {
      throw new StreamProtocolError(
        index < this.nextIndex ? `a second content_block_start for block ${index}` : `block ${index} starts before block ${this.nextIndex}`,
      );
    }
    checkBlockStart(block, index);
    this.started = true;
    this.nextIndex += 1;
    this.open = { index, block: { ...block } as OpenBlock['block'], json: '' };
    return undefined;
  }

  private openBlock(index: number, event: string): OpenBlock {
    if (this.open?.index === index) return this.open;
    const state = index < this.nextIndex ? 'already stopped' : 'not started';
    throw new StreamProtocolError(`a ${event} for block ${index}, which is ${state}`);
  }

  private addDelta(index: number, delta: Fields): string | undefined {
    const open = this.openBlock(index, 'content_block_delta');
    const { kind, payload } = checkedDelta(delta, open.block.type, index);
    const block = open.block;
    switch (kind) {
      case 'text_delta':
        block.text = `${block.text as string}${payload}`;
        return payload;
      case 'input_json_delta':
        open.json += payload;
        return undefined;
      case 'thinking_delta':
        block.thinking = `${block.thinking as string}${payload}`;
        return undefined;
      case 'signature_delta':
        block.signature = payload;
        return undefined;
      default:
        // citations_delta: citations are not sent back to the model, so not kept.
        return undefined;
    }
  }

  private close(index: number): ToolUseBlock | undefined {
    const open = this.openBlock(index, 'content_block_stop');
    this.open = undefined;
    const block = open.block;
    if (open.json !== '') block.input = parseInput(open.json, index);
    const param = toParam(block);
    if (param.type === 'text' && isBlank(param.text)) return undefined;
    this.complete.push(param);
    return param.type === 'tool_use' ? param : undefined;
  }

  private endMessage(delta: Fields, usage: unknown): undefined {
    const stopReason = delta.stop_reason;
    if (stopReason !== undefined && stopReason !== null && typeof stopReason !== 'string') {
      throw new StreamProtocolError('message_delta has a stop_reason that is not a string');
    }
    if (typeof stopReason === 'string') this.stopReason = stopReason as StopReason;
    this.addUsage(usage);
    return undefined;
  }

  /**
   * Usage arrives in `message_start` and again, cumulative, in `message_delta`: the last count of each kind wins. A
   * count that is not a token count (negative, fractional, absurd, not a number) is a protocol error: the run's cost
   * and budget are made of these. A count left out or `null` is not given.
   */
  private addUsage(usage: unknown): void {
    if (usage === undefined || usage === null) return;
    if (!isFields(usage)) throw new StreamProtocolError('usage that is not an object');
    for (const key of Object.keys(this.usage) as Array<keyof Usage>) {
      const value = usage[key];
      if (value === undefined || value === null) continue;
      const problem = tokenCountProblem(key, value);
      if (problem) throw new StreamProtocolError(problem);
      this.usage[key] = value as number;
    }
  }
}

function parseInput(json: string, index: number): unknown {
  try {
    return JSON.parse(json);
  } catch {
    throw new StreamProtocolError(`the input of tool_use block ${index} is not valid JSON`);
  }
}

/** A reply block in the shape the API takes back in `messages`. */
function toParam(block: Record<string, unknown>): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text as string };
    case 'tool_use':
      return { type: 'tool_use', id: block.id as string, name: block.name as string, input: block.input };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking as string, signature: block.signature as string };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data as string };
    default:
      // Server-side tool blocks are sent back exactly as they came.
      return block as unknown as ContentBlock;
  }
}
