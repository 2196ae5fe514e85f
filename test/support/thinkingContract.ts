/**
 * The Messages API's rules for extended thinking, as the local server holds a client to them (./messagesServer.ts):
 * - a reply with thinking or redacted_thinking blocks comes only to a request that asked for `thinking` (the API
 *   never sends one otherwise), and `temperature` other than 1 is refused with thinking;
 * - in a tool loop, the assistant message that made the calls must come back starting with the thinking blocks of
 *   that reply, unchanged (text and signature, redacted data), as the API requires ("a final assistant message must
 *   start with a thinking block"; "thinking blocks ... cannot be modified");
 * - a thinking block whose signature this server never gave is refused ("Invalid signature").
 * Each broken rule is answered 400 invalid_request_error and recorded in the server's `violations`.
 */
import { isDeepStrictEqual } from 'node:util';
import type { RequestBody, ScriptedBlock } from './messagesServer.js';

type ThinkingBlock = Extract<ScriptedBlock, { type: 'thinking' | 'redacted_thinking' }>;

const keyOf = (block: ThinkingBlock) => (block.type === 'thinking' ? block.signature : block.data);

const isThinking = (block: { type: string }): block is ThinkingBlock => block.type === 'thinking' || block.type === 'redacted_thinking';

/** What the server handed out: each reply's thinking blocks, by the ids of its tool calls. */
export class ThinkingLedger {
  private readonly byToolUse = new Map<string, ThinkingBlock[]>();
  /** Each block handed out, by its signature (a redacted block's by its data): what a signature vouches for. */
  private readonly signed = new Map<string, ThinkingBlock>();

  /** A reply that goes out: why the API would not have sent it for `body`, or undefined (and it is noted). */
  issue(body: RequestBody, content: readonly ScriptedBlock[]): string | undefined {
    const thinking = content.filter(isThinking);
    if (thinking.length === 0) return undefined;
    if (body.thinking === undefined) return 'test server: a reply with thinking blocks answers only a request with `thinking` (the API sends none otherwise)';
    for (const block of thinking) this.signed.set(keyOf(block), block);
    for (const block of content) if (block.type === 'tool_use') this.byToolUse.set(block.id, thinking);
    return undefined;
  }

  /** Why the API would refuse this request's thinking, or undefined. */
  problem(body: RequestBody): string | undefined {
    const temperature = (body as { temperature?: unknown }).temperature;
    if (body.thinking !== undefined && temperature !== undefined && temperature !== 1) return '`temperature` may only be set to 1 when thinking is enabled';
    if (body.thinking?.type === 'enabled' && body.thinking.budget_tokens < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (body.thinking?.type === 'enabled' && body.thinking.budget_tokens >= body.max_tokens) return '`max_tokens` must be greater than `thinking.budget_tokens`';
    let last: number | undefined;
    for (const [i, message] of body.messages.entries()) {
      if (message.role !== 'assistant') continue;
      last = i;
      if (typeof message.content === 'string') continue;
      for (const [j, block] of (message.content as { type: string }[]).entries()) {
        if (isThinking(block) && !isDeepStrictEqual(this.signed.get(keyOf(block)), block)) return `messages.${i}.content.${j}: Invalid \`signature\` in \`${block.type}\` block`;
      }
    }
    const content = last === undefined ? undefined : body.messages[last]?.content;
    return Array.isArray(content) ? this.lastProblem(content as { type: string }[], `messages.${last}.content`) : undefined;
  }

  /** The final assistant message of a tool loop starts with its reply's thinking blocks, all of them, in order. */
  private lastProblem(content: { type: string }[], where: string): string | undefined {
    const call = content.find((b): b is { type: 'tool_use'; id: string } => b.type === 'tool_use');
    const issued = call ? this.byToolUse.get(call.id) : undefined;
    if (issued === undefined) return undefined;
    const leading = content.slice(0, issued.length);
    if (!leading.every(isThinking)) return `${where}.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${content[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block`;
    if (!isDeepStrictEqual(leading, issued)) return `${where}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`;
    return undefined;
  }
}
