import type { MessageParam } from '../core/messages.js';

type Block = Exclude<MessageParam['content'], string>[number];

/** The tool_use ids the Messages API takes (DESIGN.md §8). */
export const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

/** A text the API refuses as a text block: empty, or nothing but white space. */
export function isBlank(text: string): boolean {
  return text.trim() === '';
}

function blocksOf(message: MessageParam): Block[] {
  return Array.isArray(message.content) ? message.content : [];
}

/** What is wrong with a message's shape, before its blocks: its role, its content, empty or not. */
function shapeProblem(message: MessageParam): string | undefined {
  if (typeof message !== 'object' || message === null) return 'is not a message object';
  if (message.role !== 'user' && message.role !== 'assistant') return `has the role ${JSON.stringify(message.role)}`;
  const content: unknown = message.content;
  if (typeof content === 'string') return isBlank(content) ? 'is empty' : undefined;
  if (!Array.isArray(content)) return 'has content that is neither a string nor a list of blocks';
  return content.length === 0 ? 'is empty' : undefined;
}

/**
 * What the API refuses in a block of a message of `role`, whatever the blocks around it: a block that is no object
 * with a type, a text block whose text is empty or only white space, a `tool_use` in a user message, a `tool_result`
 * in an assistant message.
 */
export function blockProblem(block: Block, role: MessageParam['role']): string | undefined {
  if (typeof block !== 'object' || block === null || typeof block.type !== 'string') return 'has a block that is not an object with a type';
  if (block.type === 'text') {
    if (typeof block.text !== 'string') return 'has a text block whose text is not a string';
    if (isBlank(block.text)) return block.text === '' ? 'has an empty text block' : 'has a text block of white space only';
  }
  if (block.type === 'tool_use' && role === 'user') return 'has a tool_use block (only the assistant asks for tools)';
  if (block.type === 'tool_result' && role === 'assistant') return 'has a tool_result block (only a user message answers a tool_use)';
  return undefined;
}

/**
 * Checks the history invariant of the Messages API and returns every violation found (an empty list means the
 * history may be sent):
 * - roles alternate user / assistant, starting with user; no message is empty;
 * - no text block is empty or white space only; tool_use blocks only in assistant messages, tool_result blocks only
 *   in user messages;
 * - every tool_use is answered by a tool_result with its id in the very next message, which is a user message whose
 *   tool_result blocks come first;
 * - every tool_result answers a tool_use of the message just before it, once;
 * - tool_use ids match `^[a-zA-Z0-9_-]+$` and are unique, and every tool_use input is an object.
 */
export function historyProblems(messages: readonly MessageParam[]): string[] {
  return problemsFrom(messages, 0, new Set());
}

/**
 * The problems of `messages[from..]`, given that `messages[..from]` was found valid and ends with a user message, and
 * that `seenToolUseIds` holds its tool_use ids (the set is added to).
 */
function problemsFrom(messages: readonly MessageParam[], from: number, seenToolUseIds: Set<string>): string[] {
  if (messages.length === 0) return ['messages is empty'];
  const problems: string[] = [];
  if (from === 0 && messages[0]?.role !== 'user') problems.push('messages[0] must be a user message');
  // The tool_use ids of the assistant message just before, in order (empty after a user message).
  let asked: string[] = [];
  for (let i = from; i < messages.length; i++) {
    const message = messages[i] as MessageParam;
    const where = `messages[${i}] (${String(message?.role)})`;
    const shape = shapeProblem(message);
    if (shape) problems.push(`${where} ${shape}`);
    if (i > 0 && messages[i - 1]?.role === message?.role) problems.push(`${where} has the same role as the message before it`);
    const blocks = shape && shape !== 'is empty' ? [] : blocksOf(message);
    for (const block of blocks) {
      const problem = blockProblem(block, message.role);
      if (problem) problems.push(`${where} ${problem}`);
    }
    if (message?.role === 'assistant') {
      asked = toolUsesAsked(blocks, seenToolUseIds, (p) => problems.push(`${where} ${p}`));
      const next = messages[i + 1];
      const answers = next?.role === 'user' ? blocksOf(next) : [];
      for (const id of asked) {
        if (!answers.some((b) => b.type === 'tool_result' && b.tool_use_id === id)) problems.push(`${where} tool_use ${id} has no tool_result in the next message`);
      }
    } else {
      for (const p of resultProblems(blocks, asked)) problems.push(`${where} ${p}`);
      asked = [];
    }
  }
  return problems;
}

/** The ids of an assistant message's tool_use blocks, in order; each block's problem goes to `report`. */
function toolUsesAsked(blocks: readonly Block[], seenToolUseIds: Set<string>, report: (problem: string) => void): string[] {
  const asked: string[] = [];
  for (const block of blocks) {
    if (block?.type !== 'tool_use') continue;
    const problem = toolUseProblem(block, seenToolUseIds);
    if (problem) report(problem);
    seenToolUseIds.add(block.id);
    asked.push(block.id);
  }
  return asked;
}

/** A user message's tool_result blocks: first, each answering a tool_use of the message before (`asked`), once. */
function resultProblems(blocks: readonly Block[], asked: readonly string[]): string[] {
  const problems: string[] = [];
  const answered = new Set<string>();
  let otherSeen = false;
  let resultAfterOther = false;
  for (const block of blocks) {
    if (block?.type !== 'tool_result') {
      otherSeen = true;
      continue;
    }
    if (otherSeen) resultAfterOther = true;
    const id = block.tool_use_id;
    // A result without its id (a loop that does not bind results) is said to be so, not "tool_use_id undefined".
    if (typeof id !== 'string') problems.push('has a tool_result without tool_use_id');
    else if (!asked.includes(id)) problems.push(`has a tool_result for unexpected tool_use_id ${id}`);
    if (answered.has(id)) problems.push(`answers tool_use_id ${id} twice`);
    answered.add(id);
  }
  if (resultAfterOther) problems.push('has tool_result blocks after other blocks');
  return problems;
}

/**
 * What is wrong with a tool_use block that is to join a history holding `seenIds`, or `undefined` when it may: an id
 * that the API takes (`TOOL_USE_ID`) and that is new, a name, an input that is a JSON object.
 */
export function toolUseProblem(
  block: { id: unknown; name: unknown; input: unknown },
  seenIds: Pick<ReadonlySet<string>, 'has'>,
): string | undefined {
  if (typeof block.id !== 'string' || block.id === '') return 'has a tool_use without an id';
  if (!TOOL_USE_ID.test(block.id)) return `has a tool_use id ${JSON.stringify(block.id)} the API refuses (not ^[a-zA-Z0-9_-]+$)`;
  if (seenIds.has(block.id)) return `repeats tool_use id ${block.id}`;
  if (typeof block.name !== 'string' || block.name === '') return `tool_use ${block.id} has no name`;
  if (typeof block.input !== 'object' || block.input === null || Array.isArray(block.input)) {
    return `tool_use ${block.id} has an input that is not an object`;
  }
  return undefined;
}

/**
 * Why a reply must not be appended to a history whose tool_use ids are `seenIds`: the same rules as
 * `historyProblems`, for the reply's own blocks (empty when it may be appended).
 */
export function replyProblems(content: readonly Block[], seenIds: Pick<ReadonlySet<string>, 'has'>): string[] {
  const inReply = new Set<string>();
  const seen = { has: (id: string) => seenIds.has(id) || inReply.has(id) };
  const problems: string[] = [];
  for (const block of content) {
    const problem = blockProblem(block, 'assistant') ?? (block.type === 'tool_use' ? toolUseProblem(block, seen) : undefined);
    if (problem) problems.push(`the reply ${problem}`);
    if (block?.type === 'tool_use') inReply.add(block.id);
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
 * The loop's history is an append-only log (messages are never changed in place; the last one may be replaced by a
 * new object), so when the same array comes back longer, with the same object where the last checked message was,
 * only the messages after it are checked. Anything else is checked whole.
 */
export function assertValidHistory(messages: readonly MessageParam[]): void {
  const before = checked.get(messages);
  const grown = before !== undefined && messages.length >= before.length && messages[before.length - 1] === before.last;
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
