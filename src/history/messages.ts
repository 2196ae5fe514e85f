import { AppendLog, type SharedLog } from '../core/appendLog.js';
import type { ContentBlock, MessageParam, ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';

type Block = Exclude<MessageParam['content'], string>[number];

/**
 * `blocks` as the next message of `role` in `log`, a new version of it; no blocks add nothing (an empty message is
 * invalid). When the history already ends with a message of that role, the blocks join it, so that roles keep
 * alternating: user content after a run that was aborted before the model answered, or a reply that continues a
 * paused (`pause_turn`) assistant turn, as the API continues it.
 */
export function appendTo(log: AppendLog<MessageParam>, role: 'user' | 'assistant', blocks: readonly Block[]): AppendLog<MessageParam> {
  if (blocks.length === 0) return log;
  const last = log.at(-1);
  if (last?.role !== role) return log.append({ role, content: [...blocks] });
  const previous: Block[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  return log.withLast({ role, content: [...previous, ...blocks] });
}

/** `appendTo` for a plain array: a new array, the given history left as it is. */
export function appendAssistant(messages: readonly MessageParam[], content: readonly ContentBlock[]): MessageParam[] {
  return appendTo(AppendLog.of(messages), 'assistant', content).toArray();
}

/** `appendTo` for a plain array: a new array, the given history left as it is. */
export function appendUser(messages: readonly MessageParam[], blocks: readonly Block[]): MessageParam[] {
  return appendTo(AppendLog.of(messages), 'user', blocks).toArray();
}

export function appendUserText(messages: readonly MessageParam[], text: string): MessageParam[] {
  return appendUser(messages, [{ type: 'text', text }]);
}

/** `content` (a text, or the blocks of a user message) as the next user message. */
export function appendUserContent(messages: readonly MessageParam[], content: string | readonly Block[]): MessageParam[] {
  return typeof content === 'string' ? appendUserText(messages, content) : appendUser(messages, content);
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
 * One result per tool_use: those that arrived, in the order they arrived (`arrived` keeps it: its keys are tool_use
 * ids, `toolu_…`, which an object keeps in insertion order, not being integer-like), as Claude Code 2.1.197 puts them in the next request (concurrency-safe calls that ran
 * at once, test/cli/printers/claudeConcurrentTools.json); then, in tool_use order, an `is_error` result saying why
 * there is none for each that has no result.
 */
export function completeResults(
  toolUses: readonly ToolUseBlock[],
  arrived: Readonly<Record<string, ToolResultBlockParam>>,
  missingReason: string,
): ToolResultBlockParam[] {
  const ids = new Set(toolUses.map((use) => use.id));
  const results = Object.keys(arrived).flatMap((id) => (ids.has(id) ? [arrived[id] as ToolResultBlockParam] : []));
  const missing = toolUses.filter((use) => arrived[use.id] === undefined);
  return [...results, ...missing.map((use): ToolResultBlockParam => ({ type: 'tool_result', tool_use_id: use.id, content: missingReason, is_error: true }))];
}

/**
 * A request as it was when sent, without copying its messages: a request's `messages` is the run's shared log
 * (`SharedLog`), which only grows after the request and never changes its first entries, so the view keeps the log
 * and its length then; `messages` is cut from it when read. Keeping every request of a long run this way costs
 * memory linear in its length.
 */
export function asSent<R extends { messages: SharedLog<MessageParam> }>(request: R): R {
  const { messages: log, ...body } = request;
  const count = log.length;
  const view = { ...body } as R;
  Object.defineProperty(view, 'messages', { enumerable: true, get: () => log.slice(0, count) });
  return view;
}
