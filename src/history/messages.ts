import type { ContentBlock, MessageParam, ToolResultBlockParam, ToolUseBlock } from '../model/types.js';

type UserBlock = Exclude<MessageParam['content'], string>[number];

/**
 * Appends the model's reply to `log` in place and returns it; an empty reply adds nothing (an
 * empty message is invalid). A reply that continues a paused turn (the history ends with the
 * assistant's `pause_turn` reply) joins that message, as the API continues it.
 */
export function pushAssistant(log: MessageParam[], content: readonly ContentBlock[]): MessageParam[] {
  if (content.length === 0) return log;
  const last = log[log.length - 1];
  if (last?.role !== 'assistant') {
    log.push({ role: 'assistant', content: [...content] });
    return log;
  }
  const previous: ContentBlock[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  log[log.length - 1] = { role: 'assistant', content: [...previous, ...content] };
  return log;
}

/**
 * Appends user content to `log` in place and returns it. When the history already ends with a
 * user message (a run that was aborted before the model answered, say), the blocks join that
 * message instead, so that roles keep alternating.
 */
export function pushUser(log: MessageParam[], blocks: readonly UserBlock[]): MessageParam[] {
  if (blocks.length === 0) return log;
  const last = log[log.length - 1];
  if (last?.role !== 'user') {
    log.push({ role: 'user', content: [...blocks] });
    return log;
  }
  const previous: UserBlock[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  log[log.length - 1] = { role: 'user', content: [...previous, ...blocks] };
  return log;
}

/** `pushAssistant` on a copy: the given history is left as it is. */
export function appendAssistant(messages: readonly MessageParam[], content: readonly ContentBlock[]): MessageParam[] {
  return pushAssistant([...messages], content);
}

/** `pushUser` on a copy: the given history is left as it is. */
export function appendUser(messages: readonly MessageParam[], blocks: readonly UserBlock[]): MessageParam[] {
  return pushUser([...messages], blocks);
}

export function appendUserText(messages: readonly MessageParam[], text: string): MessageParam[] {
  return appendUser(messages, [{ type: 'text', text }]);
}

export function toolUsesOf(content: readonly ContentBlock[]): ToolUseBlock[] {
  return content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/** The text of a reply: what the CLI prints as the answer. */
export function textOf(content: readonly ContentBlock[] | MessageParam['content']): string {
  if (typeof content === 'string') return content;
  return content
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('')
    .trim();
}

/**
 * One result per tool_use, in tool_use order: the result that arrived, or an `is_error`
 * result saying why there is none.
 */
export function completeResults(
  toolUses: readonly ToolUseBlock[],
  arrived: Readonly<Record<string, ToolResultBlockParam>>,
  missingReason: string,
): ToolResultBlockParam[] {
  return toolUses.map(
    (use) => arrived[use.id] ?? { type: 'tool_result', tool_use_id: use.id, content: missingReason, is_error: true },
  );
}
