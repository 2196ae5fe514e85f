import Anthropic from '@anthropic-ai/sdk';
import { assertValidHistory, InvalidHistoryError } from '../history/validate.js';
import { withCacheBreakpoints } from '../machine/cache.js';
import { toModelError } from './errors.js';
import type { ContentBlock, ModelCall, ModelReply, ModelRequest, ToolUseBlock } from './types.js';
import { ModelError } from './types.js';

export interface AnthropicModelOptions {
  /** A ready client; otherwise one is built from `apiKey` / `authToken` / `baseURL`. */
  client?: Anthropic;
  apiKey?: string;
  /** Sent as `Authorization: Bearer`, for gateways that want a token rather than a key. */
  authToken?: string;
  baseURL?: string;
  /** Time allowed for the response headers to arrive (default 10 minutes, as the SDK). */
  timeoutMs?: number;
  /** A stream that sends nothing for this long is given up as broken (default 90 s). */
  idleTimeoutMs?: number;
  /** Mark the stable prefix and the conversation so far for prompt caching (default true). */
  promptCaching?: boolean;
}

/**
 * Builds an SDK client for the loop. The SDK's own retries are off: the machine's retry state is
 * the one retry policy, so attempts never multiply.
 */
export function createClient(options: AnthropicModelOptions): Anthropic {
  return new Anthropic({
    apiKey: options.apiKey ?? null,
    authToken: options.authToken ?? null,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
    maxRetries: 0,
    logLevel: 'off',
  });
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

/**
 * The Messages API through `@anthropic-ai/sdk`, streaming. Text is handed to `onText` as it
 * arrives; each tool_use is handed to `onToolUse` as soon as its `content_block_stop` arrives. A
 * block that never got its `content_block_stop` (cut by max_tokens) is left out of the reply: its
 * input may be incomplete, so it must never run.
 */
export function createAnthropicModel(options: AnthropicModelOptions): ModelCall {
  const client = options.client ?? createClient(options);
  const idleTimeoutMs = options.idleTimeoutMs ?? 90_000;
  const prepare = options.promptCaching === false ? (r: ModelRequest) => r : withCacheBreakpoints;

  return async ({ request, onToolUse, onText }, signal) => {
    try {
      assertValidHistory(request.messages);
    } catch (error) {
      const problems = error instanceof InvalidHistoryError ? error.message : String(error);
      throw new ModelError('invalid_request', `agentloop refused to send an ${problems}`);
    }

    const stream = client.messages.stream(prepare(request), { signal });
    const completed = new Set<number>();
    let started = false;
    let idle: NodeJS.Timeout | undefined;
    let stalled = false;
    const armIdleTimer = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        stalled = true;
        stream.abort();
      }, idleTimeoutMs);
    };

    stream.on('streamEvent', (event, snapshot) => {
      armIdleTimer();
      if (event.type === 'content_block_start') started = true;
      if (event.type !== 'content_block_stop') return;
      completed.add(event.index);
      const block = snapshot.content[event.index];
      if (block?.type === 'tool_use') onToolUse(toParam(block) as ToolUseBlock);
    });
    if (onText) stream.on('text', (delta) => onText(delta));

    try {
      armIdleTimer();
      const message = await stream.finalMessage();
      const content = message.content.flatMap((block, i) => (completed.has(i) ? [toParam(block)] : []));
      const reply: ModelReply = {
        content,
        stopReason: message.stop_reason,
        usage: {
          input_tokens: message.usage.input_tokens,
          output_tokens: message.usage.output_tokens,
          cache_creation_input_tokens: message.usage.cache_creation_input_tokens ?? 0,
          cache_read_input_tokens: message.usage.cache_read_input_tokens ?? 0,
        },
        droppedIncompleteBlock: content.length < message.content.length,
      };
      return reply;
    } catch (error) {
      if (stalled) {
        throw new ModelError('timeout', `the API stream sent nothing for ${idleTimeoutMs} ms`, { midStream: started });
      }
      if (signal.aborted) throw error;
      throw toModelError(error, started);
    } finally {
      clearTimeout(idle);
    }
  };
}
