/**
 * Prompt caching: where a request carries `cache_control` breakpoints.
 *
 * The API caches the prefix of a request up to each breakpoint, in the order tools, system,
 * messages, and a later request that starts with the same prefix reads it at a tenth of the price.
 * The loop resends the whole conversation every turn, so it marks:
 * 1. the end of the stable prefix: the system prompt (which covers the tools before it), or the
 *    last tool when there is no system prompt;
 * 2. the last block of the last message: this request's whole conversation is written to the
 *    cache, ready for the next turn;
 * 3. the last block of the message that ended the previous request: the next turn reads the cache
 *    written by the previous one even when the turn in between added many blocks (the API looks
 *    back only about 20 blocks from a breakpoint for an earlier cache entry).
 * That is at most 3 breakpoints; the API allows 4.
 *
 * The context's messages are never changed; only the messages that get a breakpoint are copied, and
 * `stripCacheControl` gives back exactly the request without breakpoints. Each request gets an array of its own,
 * which nothing changes after: the `request` event hands it to listeners as sent (core/events.ts). (An earlier
 * version kept one array per history and grew it, to save the copy of the history a turn: 3 µs at 1,000 turns, 90
 * at 10,000; the event's payload then changed after it was emitted. docs/performance.md.)
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '../core/messages.js';
import type { ModelRequest } from '../core/model.js';

export const MAX_CACHE_BREAKPOINTS = 4;

const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };

type Block = Exclude<MessageParam['content'], string>[number];

/** Blocks the API accepts `cache_control` on (not thinking blocks, not empty text). */
function canMark(block: Block): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  if (block.type === 'text') return block.text.trim() !== '';
  return true;
}

/** The message with a breakpoint on its last block that can take one; unchanged when none can. */
function markLastBlock(message: MessageParam): MessageParam {
  // A string content is left as it is (the loop itself always writes blocks): turning it into a
  // block would change the message beyond the breakpoint, and `stripCacheControl` could not undo it.
  if (typeof message.content === 'string') return message;
  for (let i = message.content.length - 1; i >= 0; i--) {
    const block = message.content[i] as Block;
    if (!canMark(block)) continue;
    const content = [...message.content];
    content[i] = { ...block, cache_control: EPHEMERAL } as Block;
    return { ...message, content } as MessageParam;
  }
  return message;
}

/** Indexes of the messages that get a breakpoint: the last one, and the end of the previous request. */
export function cachedMessageIndexes(messages: readonly MessageParam[]): number[] {
  const last = messages.length - 1;
  if (last < 0) return [];
  const previousEnd = last - 2;
  const ended = previousEnd >= 0 && messages[previousEnd]?.role === 'user' && messages[previousEnd + 1]?.role === 'assistant';
  return ended ? [previousEnd, last] : [last];
}

/** The request with its cache breakpoints (see the top of this file): a new array of messages, the request's left as it is. */
export function withCacheBreakpoints(request: ModelRequest): ModelRequest {
  const out = withPrefixBreakpoint(request);
  const messages = request.messages.slice(); // slice copies large arrays far faster than a spread
  for (const i of cachedMessageIndexes(request.messages)) messages[i] = markLastBlock(messages[i] as MessageParam);
  out.messages = messages;
  return out;
}

/** The request with the breakpoint at the end of its stable prefix: the system prompt, else the last tool. */
function withPrefixBreakpoint(request: ModelRequest): ModelRequest {
  const out: ModelRequest = { ...request };
  const system = typeof request.system === 'string' ? request.system : '';
  if (system.trim() !== '') {
    out.system = [{ type: 'text', text: system, cache_control: EPHEMERAL }];
  } else if (request.tools && request.tools.length > 0) {
    const tools = [...request.tools];
    const lastTool = tools[tools.length - 1];
    if (lastTool) tools[tools.length - 1] = { ...lastTool, cache_control: EPHEMERAL };
    out.tools = tools;
  }
  return out;
}

/** How many messages at the end of a request `withCacheBreakpoints` may mark (see `cachedMessageIndexes`). */
export const CACHED_TAIL = 3;

/** Where the messages (from index `from` on) carry `cache_control`, as [message index, block index] pairs. */
export function messageCacheMarks(messages: readonly MessageParam[], from = 0): Array<[number, number]> {
  const marks: Array<[number, number]> = [];
  for (let i = from; i < messages.length; i++) {
    const message = messages[i] as MessageParam;
    if (typeof message.content === 'string') continue;
    message.content.forEach((block, j) => {
      if ('cache_control' in block && block.cache_control) marks.push([i, j]);
    });
  }
  return marks;
}

/** How many `cache_control` breakpoints a request carries in all (tools, system, messages). */
export function countCacheBreakpoints(request: ModelRequest): number {
  const tools = (request.tools ?? []).filter((t) => t.cache_control).length;
  const system = Array.isArray(request.system) ? request.system.filter((b) => b.cache_control).length : 0;
  return tools + system + messageCacheMarks(request.messages).length;
}

function withoutMark<T extends object>(value: T): T {
  if (!('cache_control' in value)) return value;
  const { cache_control: _dropped, ...rest } = value as T & { cache_control?: unknown };
  return rest as T;
}

/** The request as it would be without caching: for comparing bodies in tests and the viewer. */
export function stripCacheControl(request: ModelRequest): ModelRequest {
  const out: ModelRequest = { ...request, messages: stripMessages(request.messages) };
  if (Array.isArray(request.system)) {
    const text = request.system.map((b) => b.text).join('');
    out.system = request.system.length === 1 ? text : request.system.map(withoutMark);
  }
  if (request.tools) out.tools = request.tools.map(withoutMark);
  return out;
}

/** The messages without `cache_control`: exactly the messages the breakpoints were added to. */
export function stripMessages(messages: readonly MessageParam[]): MessageParam[] {
  return messages.map((message) => {
    if (typeof message.content === 'string' || !message.content.some((b) => 'cache_control' in b)) return message;
    return { ...message, content: message.content.map((b) => withoutMark(b)) } as MessageParam;
  });
}
