import { sharedClient, type ClientSettings, type MessagesApi } from './client.js';
import { assertValidHistory, InvalidHistoryError } from '../history/validate.js';
import { withCacheBreakpoints } from './cache.js';
import { APIConnectionTimeoutError } from '@anthropic-ai/sdk/core/error';
import { toModelError } from './errors.js';
import { idleWatch } from './idleWatch.js';
import { ReplyBuilder, StreamProtocolError } from './stream.js';
import type { ModelCall, ModelReply, ModelRequest } from '../core/model.js';
import { ModelError } from '../core/model.js';
import { thinkingProblem } from '../core/thinking.js';

export interface AnthropicModelOptions extends ClientSettings {
  /** A ready client (an `Anthropic`, or anything with its `messages.create`); otherwise the process's client for `apiKey` / `authToken` / `baseURL` (client.ts `sharedClient`). */
  client?: MessagesApi;
  /** A stream that sends nothing for this long is given up as broken (default 90 s). */
  idleTimeoutMs?: number;
  /** Mark the stable prefix and the conversation so far for prompt caching (default true). */
  promptCaching?: boolean;
}

/**
 * The Messages API through `@anthropic-ai/sdk`, streaming. Text is handed to `onText` as it
 * arrives; each tool_use is handed to `onToolUse` as soon as its `content_block_stop` arrives. A
 * block that never got its `content_block_stop` (cut by max_tokens) is left out of the reply: its
 * input may be incomplete, so it must never run.
 */
export function createAnthropicModel(options: AnthropicModelOptions): ModelCall {
  const client = options.client ?? sharedClient(options);
  const idleTimeoutMs = options.idleTimeoutMs ?? 90_000;
  const prepare = options.promptCaching === false ? (r: ModelRequest) => r : withCacheBreakpoints;
  // The process's own SDK client is cut with the SDK's own means: its request timeout bounds the wait for the
  // response (the idle bound, or the client's timeout if shorter), and its stream's controller stops the reading.
  // A client given by the caller may have neither: its request goes with a controller of the call's own.
  const headersMs = options.client ? undefined : Math.min(idleTimeoutMs, options.timeoutMs ?? SDK_TIMEOUT_MS);

  return async (input, signal) => {
    refuseInvalidHistory(input.request);
    // Raw events (`stream: true`) rather than the SDK's MessageStream: the reply is built here
    // once, without a snapshot per event or partial JSON parsing of tool input on every delta.
    const local = headersMs === undefined ? linked(signal) : undefined;
    let idle = local && idleWatch(idleTimeoutMs, local.controller);
    let cut: AbortController | undefined = local?.controller;
    const reply = new ReplyBuilder();
    let reading = false;
    try {
      const body = prepare(input.request);
      input.onRequest?.(body);
      const sent = local ? { signal: local.controller.signal } : { signal, timeout: headersMs };
      const answer = await withRequestId(client.messages.create({ ...body, stream: true }, sent));
      reading = true;
      cut ??= (answer.data as { controller?: AbortController }).controller;
      if (cut) idle ??= idleWatch(idleTimeoutMs, cut);
      input.onResponse?.();
      return await readReply(answer.data, reply, input, idle, [signal, cut?.signal], answer.request_id ?? undefined);
    } catch (error) {
      const quiet = idle?.stalled === true || (!reading && headersMs === idleTimeoutMs && error instanceof APIConnectionTimeoutError);
      throw failureOf(error, { stalled: quiet, idleTimeoutMs, aborted: signal.aborted, cut, reply, reading });
    } finally {
      idle?.stop();
      local?.unlink();
    }
  };
}

/** The SDK's request timeout when none is given (`BaseAnthropic.DEFAULT_TIMEOUT`): ten minutes. */
const SDK_TIMEOUT_MS = 600_000;

/** A controller of the call's own, aborted with `signal` (`unlink` when the call is over). */
function linked(signal: AbortSignal) {
  const controller = new AbortController();
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  return { controller, unlink: () => signal.removeEventListener('abort', forward) };
}

/**
 * The answer's stream and its request id (the `request-id` header): the SDK's APIPromise gives both; a client whose
 * `create` returns a plain promise (a wrapper's, a test's) gives the stream only, and the reply has no request id.
 */
async function withRequestId<T>(pending: Promise<T> & { withResponse?: () => Promise<{ data: T; request_id?: string | null }> }) {
  if (typeof pending.withResponse === 'function') return pending.withResponse();
  return { data: await pending, request_id: undefined };
}

/**
 * A history the API would refuse is never sent, nor a thinking setting it would refuse (budget, max_tokens,
 * temperature: core/thinking.ts): a ModelError (`invalid_request`) saying what is wrong.
 */
function refuseInvalidHistory(request: ModelRequest): void {
  const thinking = thinkingProblem(request);
  if (thinking !== undefined) throw new ModelError('invalid_request', `agentloop refused to send the request: ${thinking}`);
  try {
    assertValidHistory(request.messages);
  } catch (error) {
    const problems = error instanceof InvalidHistoryError ? error.message : String(error);
    throw new ModelError('invalid_request', `agentloop refused to send an ${problems}`);
  }
}

type CallInput = Parameters<ModelCall>[0];

/** Reads the stream's events into the reply, handing on text and tool_use blocks as they complete. */
async function readReply(
  stream: AsyncIterable<Parameters<ReplyBuilder['add']>[0]>,
  reply: ReplyBuilder,
  input: Pick<CallInput, 'onToolUse' | 'onText' | 'onThinking' | 'onStreamEvent'>,
  idle: { note(): void } | undefined,
  signals: readonly (AbortSignal | undefined)[],
  requestId: string | undefined,
): Promise<ModelReply> {
  for await (const event of stream) {
    idle?.note();
    input.onStreamEvent?.(event, requestId);
    const out = reply.add(event);
    if (input.onThinking) thinkingPiece(event, input.onThinking);
    if (out === undefined) continue;
    if (typeof out === 'string') input.onText?.(out);
    else input.onToolUse(out);
  }
  // The SDK ends the iteration quietly when the request is aborted: the caller's reason first, then the call's own.
  for (const signal of signals) signal?.throwIfAborted();
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
    ...(requestId ? { requestId } : {}),
  } satisfies ModelReply;
}

/** A thinking block's start, thinking_delta or signature_delta (the reply builder has checked the event). */
function thinkingPiece(raw: unknown, onThinking: NonNullable<CallInput['onThinking']>): void {
  const event = raw as { type: string; content_block?: unknown; delta?: unknown };
  if (event.type === 'content_block_start' && (event.content_block as { type?: string }).type === 'thinking') return onThinking({ start: true });
  if (event.type !== 'content_block_delta') return;
  const delta = event.delta as { type: string; thinking?: string; signature?: string };
  if (delta.type === 'thinking_delta') onThinking({ thinking: delta.thinking ?? '' });
  else if (delta.type === 'signature_delta') onThinking({ signature: delta.signature ?? '' });
}

/** What a failed call throws: a stall as a timeout, the caller's abort as it came, a broken protocol as a bad reply. */
function failureOf(
  error: unknown,
  at: { stalled: boolean; idleTimeoutMs: number; aborted: boolean; cut: AbortController | undefined; reply: ReplyBuilder; reading: boolean },
): unknown {
  const midStream = at.reply.started;
  if (at.stalled) return new ModelError('timeout', `the API stream sent nothing for ${at.idleTimeoutMs} ms`, { midStream });
  if (at.aborted) return error;
  if (error instanceof StreamProtocolError) {
    // Refused like a reply that would break the history: never appended, retried.
    at.cut?.abort(error);
    return new ModelError('invalid_reply', `the API stream broke the protocol: ${error.message}`, { midStream });
  }
  return toModelError(error, midStream, at.reading);
}
