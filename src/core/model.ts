import type Anthropic from '@anthropic-ai/sdk';
import type { SharedLog } from './appendLog.js';
import type { ContentBlock, MessageParam, StopReason, ToolUseBlock } from './messages.js';
import type { ThinkingParam } from './thinking.js';
import type { ToolDefinition } from './toolDefinition.js';
import type { Usage } from './usage.js';

/**
 * The body of one `POST /v1/messages`: derived from the machine's context by `buildRequest`
 * (the model service adds prompt-caching breakpoints when it sends it).
 */
export interface ModelRequest {
  model: string;
  max_tokens: number;
  /** A string, or text blocks when it carries a `cache_control` breakpoint (anthropic/cache.ts). */
  system?: string | Anthropic.TextBlockParam[];
  tools?: Array<ToolDefinition & { cache_control?: Anthropic.CacheControlEphemeral }>;
  /** Extended thinking, when the run asks for it (./thinking.ts). */
  thinking?: ThinkingParam;
  /** From `buildRequest`: the run's history itself, which grows after the request is made (see `SharedLog`). */
  messages: SharedLog<MessageParam>;
}

/** What a model call gives back to the machine. */
export interface ModelReply {
  /** The complete blocks of the reply; a tool_use cut off mid-input is not among them. */
  content: ContentBlock[];
  stopReason: StopReason | null;
  usage: Usage;
  /** True when a block (typically a tool_use) was cut off by max_tokens and left out. */
  droppedIncompleteBlock: boolean;
  /** The API's message id (from `message_start`), when the model call has one. */
  id?: string;
  /** The model that answered, as the API names it, when the model call reports it. */
  model?: string;
  /** The API's request id (its `request-id` header), when the model call has one: Claude Code's `request_id`. */
  requestId?: string;
}

/** A thinking block as it streams (its text is the reply's; this is for progress, e.g. Claude Code's thinking_tokens). */
export type ThinkingPiece = { start: true } | { thinking: string } | { signature: string };

/** What the machine hands the model actor for one call. */
export interface ModelCallInput {
  request: ModelRequest;
  /** Which model call of the run this is: for logs and observers, never sent to the model. */
  turnCount: number;
  /** Called as soon as a tool_use block is complete in the stream (its content_block_stop). */
  onToolUse: (block: ToolUseBlock) => void;
  /** Called with each piece of text as it arrives; set by the session to show it live. */
  onText?: (delta: string) => void;
  /** Called as a thinking block streams: its start, each piece of its thinking, its signature. */
  onThinking?: (piece: ThinkingPiece) => void;
  /** Called with the body exactly as it is sent (after the adapter's own additions). Must not throw. */
  onRequest?: (body: ModelRequest) => void;
  /** Called with each raw event of the API stream (and the request id of the answer, when it has one), when set. Must not throw. */
  onStreamEvent?: (event: unknown, requestId?: string) => void;
  /** Called once the response has begun (the request is sent, the model is working). Must not throw. */
  onResponse?: () => void;
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
  /** The reply would make the history invalid (e.g. a tool_use input that is not an object). */
  | 'invalid_reply'
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
    return ['rate_limit', 'overloaded', 'server', 'connection', 'timeout', 'invalid_reply'].includes(this.kind);
  }
}
