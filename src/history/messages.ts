import type { ContentBlock, MessageParam, ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';

type Block = Exclude<MessageParam['content'], string>[number];

/**
 * Appends blocks as a message of `role` to `log` in place and returns it; no blocks add nothing
 * (an empty message is invalid). When the history already ends with a message of that role, the
 * blocks join it, so that roles keep alternating: user content after a run that was aborted
 * before the model answered, or a reply that continues a paused (`pause_turn`) assistant turn, as
 * the API continues it.
 */
function pushContent(log: MessageParam[], role: 'user' | 'assistant', blocks: readonly Block[]): MessageParam[] {
  if (blocks.length === 0) return log;
  const last = log[log.length - 1];
  if (last?.role !== role) {
    log.push({ role, content: [...blocks] });
    return log;
  }
  const previous: Block[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  log[log.length - 1] = { role, content: [...previous, ...blocks] };
  return log;
}

/** Appends the model's reply in place (see `pushContent`). */
export function pushAssistant(log: MessageParam[], content: readonly ContentBlock[]): MessageParam[] {
  return pushContent(log, 'assistant', content);
}

/** Appends user content in place (see `pushContent`). */
export function pushUser(log: MessageParam[], blocks: readonly Block[]): MessageParam[] {
  return pushContent(log, 'user', blocks);
}

/** `pushAssistant` on a copy: the given history is left as it is. */
export function appendAssistant(messages: readonly MessageParam[], content: readonly ContentBlock[]): MessageParam[] {
  return pushAssistant([...messages], content);
}

/** `pushUser` on a copy: the given history is left as it is. */
export function appendUser(messages: readonly MessageParam[], blocks: readonly Block[]): MessageParam[] {
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

/**
 * A request as it was when sent, without copying its messages: the loop's history is an
 * append-only log whose last message may later be replaced by a new object (content joined into
 * it), so the view keeps the log, its length then and its last message then; `messages` is
 * rebuilt when read. Keeping every request of a long run this way costs memory linear in its length.
 */
export function asSent<R extends { messages: MessageParam[] }>(request: R): R {
  const { messages: log, ...body } = request;
  const count = log.length;
  const last = log[count - 1];
  const view = { ...body } as R;
  Object.defineProperty(view, 'messages', {
    enumerable: true,
    get: () => (last === undefined ? [] : [...log.slice(0, count - 1), last]),
  });
  return view;
}
