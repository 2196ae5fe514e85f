import Anthropic from '@anthropic-ai/sdk';
import { assertValidHistory, InvalidHistoryError } from '../history/validate.js';
import { withCacheBreakpoints } from './cache.js';
import { toModelError } from './errors.js';
import { ReplyBuilder, StreamProtocolError } from './stream.js';
import type { ModelCall, ModelReply, ModelRequest } from '../core/model.js';
import { ModelError } from '../core/model.js';

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

  return async ({ request, onToolUse, onText, onRequest, onStreamEvent, onResponse }, signal) => {
    try {
      assertValidHistory(request.messages);
    } catch (error) {
      const problems = error instanceof InvalidHistoryError ? error.message : String(error);
      throw new ModelError('invalid_request', `agentloop refused to send an ${problems}`);
    }

    // Raw events (`stream: true`) rather than the SDK's MessageStream: the reply is built here
    // once, without a snapshot per event or partial JSON parsing of tool input on every delta.
    const local = new AbortController();
    const forward = () => local.abort(signal.reason);
    if (signal.aborted) forward();
    else signal.addEventListener('abort', forward, { once: true });
    const reply = new ReplyBuilder();
    // The idle timer is set once; each event only notes the time, and the timer, when it fires,
    // waits again for what is left (re-arming a timer on every event costs more than the event).
    let lastEventAt = performance.now();
    let stalled = false;
    let reading = false;
    let idle: NodeJS.Timeout | undefined;
    const checkIdle = () => {
      const quiet = performance.now() - lastEventAt;
      if (quiet < idleTimeoutMs) {
        idle = setTimeout(checkIdle, idleTimeoutMs - quiet);
        return;
      }
      stalled = true;
      local.abort(new Error('stalled'));
    };

    try {
      idle = setTimeout(checkIdle, idleTimeoutMs);
      const body = prepare(request);
      onRequest?.(body);
      const stream = await client.messages.create({ ...body, stream: true }, { signal: local.signal });
      reading = true;
      onResponse?.();
      for await (const event of stream) {
        lastEventAt = performance.now();
        onStreamEvent?.(event);
        const out = reply.add(event);
        if (out === undefined) continue;
        if (typeof out === 'string') onText?.(out);
        else onToolUse(out);
      }
      // The SDK ends the iteration quietly when the request is aborted.
      if (local.signal.aborted) throw local.signal.reason;
      if (!reply.stopped) {
        throw new ModelError('connection', 'the API stream broke off: it ended before message_stop', { midStream: reply.started });
      }
      return {
        content: reply.content(),
        stopReason: reply.stopReason,
        usage: reply.usage,
        droppedIncompleteBlock: reply.droppedIncompleteBlock(),
        ...(reply.id ? { id: reply.id } : {}),
        ...(reply.model ? { model: reply.model } : {}),
      } satisfies ModelReply;
    } catch (error) {
      if (stalled) {
        throw new ModelError('timeout', `the API stream sent nothing for ${idleTimeoutMs} ms`, { midStream: reply.started });
      }
      if (signal.aborted) throw error;
      if (error instanceof StreamProtocolError) {
        // Refused like a reply that would break the history: never appended, retried.
        local.abort(error);
        throw new ModelError('invalid_reply', `the API stream broke the protocol: ${error.message}`, { midStream: reply.started });
      }
      throw toModelError(error, reply.started, reading);
    } finally {
      clearTimeout(idle);
      signal.removeEventListener('abort', forward);
    }
  };
}
