import type { MessageParam } from '../model/types.js';

type Block = Exclude<MessageParam['content'], string>[number];

function blocksOf(message: MessageParam): Block[] {
  return typeof message.content === 'string' ? [] : message.content;
}

function isEmpty(message: MessageParam): boolean {
  return typeof message.content === 'string' ? message.content.trim() === '' : message.content.length === 0;
}

/**
 * Checks the history invariant of the Messages API and returns every violation found
 * (an empty list means the history may be sent):
 * - roles alternate user / assistant, starting with user; no message is empty;
 * - every tool_use is answered by a tool_result with its id in the very next message, which is a
 *   user message whose tool_result blocks come first;
 * - every tool_result answers a tool_use of the message just before it, once;
 * - tool_use ids are unique and every tool_use input is an object.
 */
export function historyProblems(messages: readonly MessageParam[]): string[] {
  const problems: string[] = [];
  if (messages.length === 0) return ['messages is empty'];
  if (messages[0]?.role !== 'user') problems.push('messages[0] must be a user message');
  const seenToolUseIds = new Set<string>();

  messages.forEach((message, i) => {
    const where = `messages[${i}] (${message.role})`;
    if (i > 0 && messages[i - 1]?.role === message.role) problems.push(`${where} has the same role as the message before it`);
    if (isEmpty(message)) problems.push(`${where} is empty`);
    const blocks = blocksOf(message);

    if (message.role === 'assistant') {
      const toolUses = blocks.filter((b) => b.type === 'tool_use');
      for (const use of toolUses) {
        if (seenToolUseIds.has(use.id)) problems.push(`${where} repeats tool_use id ${use.id}`);
        seenToolUseIds.add(use.id);
        if (typeof use.input !== 'object' || use.input === null || Array.isArray(use.input)) {
          problems.push(`${where} tool_use ${use.id} has an input that is not an object`);
        }
      }
      if (toolUses.length === 0) return;
      const next = messages[i + 1];
      const answered = new Set(
        next?.role === 'user' ? blocksOf(next).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])) : [],
      );
      for (const use of toolUses) {
        if (!answered.has(use.id)) {
          problems.push(`${where} tool_use ${use.id} has no tool_result in the next message`);
        }
      }
      return;
    }

    const results = blocks.filter((b) => b.type === 'tool_result');
    if (results.length === 0) return;
    const firstOther = blocks.findIndex((b) => b.type !== 'tool_result');
    const lastResult = blocks.map((b) => b.type).lastIndexOf('tool_result');
    if (firstOther !== -1 && firstOther < lastResult) problems.push(`${where} has tool_result blocks after other blocks`);
    const previous = messages[i - 1];
    const asked = new Set(
      previous?.role === 'assistant' ? blocksOf(previous).flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [],
    );
    const seen = new Set<string>();
    for (const result of results) {
      if (!asked.has(result.tool_use_id)) problems.push(`${where} has a tool_result for unexpected tool_use_id ${result.tool_use_id}`);
      if (seen.has(result.tool_use_id)) problems.push(`${where} answers tool_use_id ${result.tool_use_id} twice`);
      seen.add(result.tool_use_id);
    }
  });
  return problems;
}

export class InvalidHistoryError extends Error {
  override readonly name = 'InvalidHistoryError';
  constructor(readonly problems: string[]) {
    super(`invalid message history: ${problems.join('; ')}`);
  }
}

/** Throws an `InvalidHistoryError` listing every violation; used before every send. */
export function assertValidHistory(messages: readonly MessageParam[]): void {
  const problems = historyProblems(messages);
  if (problems.length > 0) throw new InvalidHistoryError(problems);
}
