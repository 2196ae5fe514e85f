import type Anthropic from '@anthropic-ai/sdk';
import type { ToolDefinition } from '../tools/types.js';

export type MessageParam = Anthropic.MessageParam;
/** A block of a reply, in the shape it is sent back to the API in `messages`. */
export type ContentBlock = Anthropic.ContentBlockParam;
export type ToolUseBlock = Anthropic.ToolUseBlockParam;
export type ToolResultBlockParam = Anthropic.ToolResultBlockParam;
export type StopReason = Anthropic.StopReason;

/** Token counts of one model call, or summed over a run. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export const zeroUsage = (): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

export function addUsage(a: Usage, b: Partial<Usage> | null | undefined): Usage {
  return {
    input_tokens: a.input_tokens + (b?.input_tokens ?? 0),
    output_tokens: a.output_tokens + (b?.output_tokens ?? 0),
    cache_creation_input_tokens: a.cache_creation_input_tokens + (b?.cache_creation_input_tokens ?? 0),
    cache_read_input_tokens: a.cache_read_input_tokens + (b?.cache_read_input_tokens ?? 0),
  };
}

/**
 * The body of one `POST /v1/messages`: derived from the machine's context by `buildRequest`
 * (the model service adds prompt-caching breakpoints when it sends it).
 */
export interface ModelRequest {
  model: string;
  max_tokens: number;
  /** A string, or text blocks when it carries a `cache_control` breakpoint (machine/cache.ts). */
  system?: string | Anthropic.TextBlockParam[];
  tools?: Array<ToolDefinition & { cache_control?: Anthropic.CacheControlEphemeral }>;
  messages: MessageParam[];
}

/** What a model call gives back to the machine. */
export interface ModelReply {
  /** The complete blocks of the reply; a tool_use cut off mid-input is not among them. */
  content: ContentBlock[];
  stopReason: StopReason | null;
  usage: Usage;
  /** True when a block (typically a tool_use) was cut off by max_tokens and left out. */
  droppedIncompleteBlock: boolean;
}

/** What the machine hands the model actor for one call. */
export interface ModelCallInput {
  request: ModelRequest;
  /** Which model call of the run this is: for logs and observers, never sent to the model. */
  turnCount: number;
  /** Called as soon as a tool_use block is complete in the stream (its content_block_stop). */
  onToolUse: (block: ToolUseBlock) => void;
  /** Called with each piece of text as it arrives; set by the session to show it live. */
  onText?: (delta: string) => void;
}

/** Implemented by the Anthropic service and by the scripted fake. */
export type ModelCall = (input: ModelCallInput, signal: AbortSignal) => Promise<ModelReply>;

export type ModelErrorKind =
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'connection'
  | 'timeout'
  | 'prompt_too_long'
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'unknown';

/**
 * A failed model call, as plain data the machine's guards can read. The model service turns
 * every SDK error into this shape.
 */
export class ModelError extends Error {
  override readonly name = 'ModelError';
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly details: {
      status?: number;
      /** The API's own error type, e.g. `overloaded_error`. */
      apiType?: string;
      retryAfterMs?: number;
      /** The stream had started delivering content when it failed. */
      midStream?: boolean;
      requestId?: string;
    } = {},
  ) {
    super(message);
  }

  get retryable(): boolean {
    return ['rate_limit', 'overloaded', 'server', 'connection', 'timeout'].includes(this.kind);
  }
}
