import type { MessageParam } from '../core/messages.js';

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
  return problemsFrom(messages, 0, new Set());
}

/**
 * The problems of `messages[from..]`, given that `messages[..from]` was found valid and ends with
 * a user message, and that `seenToolUseIds` holds its tool_use ids (the set is added to).
 */
function problemsFrom(messages: readonly MessageParam[], from: number, seenToolUseIds: Set<string>): string[] {
  const problems: string[] = [];
  if (messages.length === 0) return ['messages is empty'];
  if (from === 0 && messages[0]?.role !== 'user') problems.push('messages[0] must be a user message');
  // The tool_use ids of the assistant message just before, in order (empty after a user message).
  let asked: string[] = [];

  for (let i = from; i < messages.length; i++) {
    const message = messages[i] as MessageParam;
    const where = () => `messages[${i}] (${message.role})`;
    if (i > 0 && messages[i - 1]?.role === message.role) problems.push(`${where()} has the same role as the message before it`);
    if (isEmpty(message)) problems.push(`${where()} is empty`);
    const blocks = blocksOf(message);

    if (message.role === 'assistant') {
      asked = [];
      for (const block of blocks) {
        if (block.type !== 'tool_use') continue;
        const problem = toolUseProblem(block, seenToolUseIds);
        if (problem) problems.push(`${where()} ${problem}`);
        seenToolUseIds.add(block.id);
        asked.push(block.id);
      }
      if (asked.length === 0) continue;
      const next = messages[i + 1];
      const nextBlocks = next?.role === 'user' ? blocksOf(next) : [];
      for (const id of asked) {
        if (!nextBlocks.some((b) => b.type === 'tool_result' && b.tool_use_id === id)) {
          problems.push(`${where()} tool_use ${id} has no tool_result in the next message`);
        }
      }
      continue;
    }

    // A user message: tool_result blocks first, each answering a tool_use of the message before, once.
    let results = 0;
    let otherSeen = false;
    let resultAfterOther = false;
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j] as Block;
      if (block.type !== 'tool_result') {
        otherSeen = true;
        continue;
      }
      results += 1;
      if (otherSeen) resultAfterOther = true;
      const id = block.tool_use_id;
      if (!asked.includes(id)) problems.push(`${where()} has a tool_result for unexpected tool_use_id ${id}`);
      for (let k = 0; k < j; k++) {
        const earlier = blocks[k] as Block;
        if (earlier.type === 'tool_result' && earlier.tool_use_id === id) {
          problems.push(`${where()} answers tool_use_id ${id} twice`);
          break;
        }
      }
    }
    if (results > 0 && resultAfterOther) problems.push(`${where()} has tool_result blocks after other blocks`);
    asked = [];
  }
  return problems;
}

/**
 * What is wrong with a tool_use block that is to join a history holding `seenIds`, or `undefined`
 * when it may: an id that is a non-empty string and new, a name, an input that is a JSON object.
 */
export function toolUseProblem(
  block: { id: unknown; name: unknown; input: unknown },
  seenIds: Pick<ReadonlySet<string>, 'has'>,
): string | undefined {
  if (typeof block.id !== 'string' || block.id === '') return 'has a tool_use without an id';
  if (seenIds.has(block.id)) return `repeats tool_use id ${block.id}`;
  if (typeof block.name !== 'string' || block.name === '') return `tool_use ${block.id} has no name`;
  if (typeof block.input !== 'object' || block.input === null || Array.isArray(block.input)) {
    return `tool_use ${block.id} has an input that is not an object`;
  }
  return undefined;
}

/**
 * Why a reply must not be appended to a history whose tool_use ids are `seenIds`: the same rules
 * as `historyProblems`, for the reply's own blocks (empty when it may be appended).
 */
export function replyProblems(content: readonly Block[], seenIds: ReadonlySet<string>): string[] {
  const inReply = new Set<string>();
  const seen = { has: (id: string) => seenIds.has(id) || inReply.has(id) };
  const problems: string[] = [];
  for (const block of content) {
    if (block.type === 'text' && typeof block.text !== 'string') problems.push('the reply has a text block whose text is not a string');
    if (block.type !== 'tool_use') continue;
    const problem = toolUseProblem(block, seen);
    if (problem) problems.push(`the reply ${problem}`);
    inReply.add(block.id);
  }
  return problems;
}

export class InvalidHistoryError extends Error {
  override readonly name = 'InvalidHistoryError';
  constructor(readonly problems: string[]) {
    super(`invalid message history: ${problems.join('; ')}`);
  }
}

interface Checked {
  length: number;
  /** The last message then: the same object at the same index means the prefix is unchanged. */
  last: MessageParam;
  toolUseIds: Set<string>;
}

/** Histories found valid, by array: a run's history only grows, so each send checks what is new. */
const checked = new WeakMap<readonly MessageParam[], Checked>();

/**
 * Throws an `InvalidHistoryError` listing every violation; used before every send.
 *
 * The loop's history is an append-only log (messages are never changed in place; the last one
 * may be replaced by a new object), so when the same array comes back longer, with the same
 * object where the last checked message was, only the messages after it are checked. Anything
 * else is checked whole.
 */
export function assertValidHistory(messages: readonly MessageParam[]): void {
  const before = checked.get(messages);
  const grown =
    before !== undefined && messages.length >= before.length && messages[before.length - 1] === before.last;
  const toolUseIds = grown ? before.toolUseIds : new Set<string>();
  const problems = problemsFrom(messages, grown ? before.length : 0, toolUseIds);
  if (problems.length > 0) {
    checked.delete(messages);
    throw new InvalidHistoryError(problems);
  }
  const last = messages[messages.length - 1];
  // Only a history that ends with a user message is a prefix the next check can start after.
  if (last?.role === 'user') checked.set(messages, { length: messages.length, last, toolUseIds });
  else checked.delete(messages);
}
