/**
 * Rebuilding a conversation from its transcript, for `--resume` / `--continue`.
 *
 * A run can die anywhere. What the transcript may end with, and what resuming makes of it:
 * - a user message (the prompt, or tool results): the model is asked again from there. But if
 *   tools of the reply being streamed had already started (a read-only tool starts as soon as
 *   its tool_use block is complete), that reply is kept as those tool_use blocks alone, and they
 *   are answered as below: the model learns they ran, rather than asking for them again. A reply
 *   that was refused (a `reply_refused` record) keeps nothing, not even its started tools;
 * - an assistant message with tool_use blocks whose results were never appended (the process
 *   died while the tools ran): each is answered with the result it produced, if its
 *   `tool_result` record was written, or with an `is_error` result saying it was interrupted.
 *   A tool is never run again: it may have had effects. A subagent cut off (an Agent call) is taken up by the
 *   resumed run instead (./cutAgents.ts): where it stopped, or from its start when nothing of it ran;
 * - an assistant message without tool_use: the conversation is complete; it goes on only with
 *   a new prompt;
 * - a `prompt` record and no message after it (the process died before the run wrote the
 *   prompt to the history): the prompt is added as the next user message, and the model is
 *   asked it;
 * - only the header: nothing was asked; a new prompt starts the conversation.
 * A `compact_boundary` record starts the history again from its messages (the summary and what was kept): a session
 * that outgrew the context window resumes from its last boundary, not from the whole conversation.
 */
import { appendUser, appendUserText, toolUsesOf } from '../history/messages.js';
import { historyProblems } from '../history/validate.js';
import type { ContentBlock, MessageParam, ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import type { PromptBlock, SessionRecord } from './records.js';
import { plural } from '../core/plural.js';
import { INTERRUPTED_TOOL_RESULT } from '../core/prompts.js';
import { cutAgents, type CutAgent } from './cutAgents.js';
import { AGENT_TOOL_NAME } from '../tools/agent/agentTool.js';

export { INTERRUPTED_TOOL_RESULT } from '../core/prompts.js';

export interface RestoredConversation {
  /** The history, repaired so that it is valid for the API. */
  messages: MessageParam[];
  /** How many of `messages` are in the transcript already (the rest is the repair). */
  recordedCount: number;
  /** The turn count the next model call has. */
  turnCount: number;
  /** What the repair did, in words. */
  repaired: string[];
  /** Whether the model can be called without a new prompt (the history ends with a user message). */
  awaitsModel: boolean;
  /** Problems that remain after the repair; resuming is refused when there are any. */
  problems: string[];
  /**
   * Subagents the last run cut off (./cutAgents.ts): their Agent calls are answered as interrupted in `messages`; a
   * run given them (`runAgent`'s `cutAgents`) takes each child up where it stopped and answers with its result.
   */
  cutAgents: CutAgent[];
}

/** The messages as the transcript has them, and the prompt no message followed (if any). */
export interface RecordedMessages {
  /** The history up to the first index no record gave (later records for an index replace earlier ones). */
  messages: MessageParam[];
  /** The first missing index when records for later indices exist (their messages are left out). */
  gap: number | undefined;
  /**
   * The text of the last `prompt` record when no `message` record came after it: the process
   * ended before the prompt was written to the history, so it is its next user message.
   */
  pendingPrompt: string | undefined;
  /** The blocks of that prompt, when it was a question of content blocks (an image, say). */
  pendingContent: PromptBlock[] | undefined;
}

/**
 * Reads the `message` records in order. Memory grows with the number of records only: indices
 * past the end of the history wait in a map until the history reaches them (shapes.ts keeps an
 * index below its line number).
 */
export function recordedMessages(records: readonly SessionRecord[]): RecordedMessages {
  const messages: MessageParam[] = [];
  const ahead = new Map<number, MessageParam>();
  let pendingPrompt: string | undefined;
  let pendingContent: PromptBlock[] | undefined;
  for (const record of records) {
    if (record.type === 'prompt') {
      pendingPrompt = record.text;
      pendingContent = record.content;
    }
    if (record.type === 'resume') {
      // The resume went on from the history as it was: messages past a gap are not part of it.
      ahead.clear();
      if (record.messageCount !== undefined && record.messageCount < messages.length) messages.length = record.messageCount;
    }
    if (record.type === 'compact_boundary') {
      // The history goes on from the boundary's: what came before is summarized in it.
      ahead.clear();
      messages.length = 0;
      messages.push(...record.messages);
      pendingPrompt = undefined;
      pendingContent = undefined;
    }
    if (record.type !== 'message') continue;
    pendingPrompt = undefined;
    pendingContent = undefined;
    const { index } = record;
    if (index < messages.length) messages[index] = record.message;
    else if (index > messages.length) ahead.set(index, record.message);
    else {
      messages.push(record.message);
      ahead.delete(index);
      for (let next = ahead.get(messages.length); next !== undefined; next = ahead.get(messages.length)) {
        ahead.delete(messages.length);
        messages.push(next);
      }
    }
  }
  for (const index of [...ahead.keys()]) if (index < messages.length) ahead.delete(index);
  return { messages, gap: ahead.size > 0 ? messages.length : undefined, pendingPrompt, pendingContent };
}

/**
 * The turn count the resumed run starts from: the turn after the last model call that was
 * answered, or the same turn again when the process died waiting for the answer.
 */
export function resumeTurnCount(records: readonly SessionRecord[], messages: readonly MessageParam[]): number {
  let lastRequest: { turnCount: number; messageCount: number } | undefined;
  let resumedAt = 1;
  for (const record of records) {
    if (record.type === 'request') lastRequest = record;
    if (record.type === 'resume' || record.type === 'compact_boundary') {
      // Nothing was asked since this resume or boundary (yet): it starts where the record said.
      lastRequest = undefined;
      resumedAt = record.turnCount;
    }
  }
  if (!lastRequest) return resumedAt;
  const answered = messages[lastRequest.messageCount]?.role === 'assistant';
  return answered ? lastRequest.turnCount + 1 : lastRequest.turnCount;
}

export function restoreConversation(records: readonly SessionRecord[]): RestoredConversation {
  const { messages: recorded, gap, pendingPrompt, pendingContent } = recordedMessages(records);
  const repaired: string[] = [];
  if (gap !== undefined) repaired.push(`messages from index ${gap} on were unreadable and are left out`);
  let messages = recorded;
  // How many recorded messages stay as they are (a pending prompt may join the last one).
  let recordedCount = recorded.length;

  if (pendingPrompt !== undefined) {
    messages = pendingContent ? appendUser(messages, pendingContent) : appendUserText(messages, pendingPrompt);
    if (messages.length === recorded.length) recordedCount -= 1;
    repaired.push(`the prompt "${excerpt(pendingPrompt)}" had not reached the history: added`);
  }

  const started = pendingPrompt === undefined ? startedDuringLastCall(records, messages) : [];
  if (messages[messages.length - 1]?.role === 'user' && started.length > 0) {
    messages = [...messages, { role: 'assistant', content: started }];
    repaired.push(`the reply being streamed was cut off after ${plural(started.length, 'tool')} had started: kept their tool_use blocks`);
  }

  const last = messages[messages.length - 1];
  if (last?.role === 'assistant' && typeof last.content !== 'string') {
    const uses = toolUsesOf(last.content as ContentBlock[]);
    if (uses.length > 0) {
      const finished = finishedResults(records, uses.map((u) => u.id));
      const results: ToolResultBlockParam[] = uses.map(
        (use) => finished.get(use.id) ?? { type: 'tool_result', tool_use_id: use.id, content: INTERRUPTED_TOOL_RESULT, is_error: true },
      );
      const interrupted = uses.filter((u) => !finished.has(u.id));
      messages = appendUser(messages, results);
      const children = new Set(records.flatMap((r) => (r.type === 'agent_start' ? [r.toolUseId] : [])));
      const named = (uses: ToolUseBlock[]) => uses.map((u) => `${u.name} ${u.id}`).join(', ');
      const cut = interrupted.filter((u) => !children.has(u.id) && u.name !== AGENT_TOOL_NAME);
      if (cut.length > 0) repaired.push(`answered ${named(cut)} as interrupted (not run again)`);
      const cutChildren = interrupted.filter((u) => children.has(u.id));
      if (cutChildren.length > 0) repaired.push(`${named(cutChildren)} had a subagent running: it goes on where it stopped (answered as interrupted if it cannot)`);
      // Nothing of the child ran (no start record: no request, no tool): the call runs (./cutAgents.ts).
      const unstarted = interrupted.filter((u) => !children.has(u.id) && u.name === AGENT_TOOL_NAME);
      if (unstarted.length > 0) repaired.push(`${named(unstarted)} was cut before its subagent started: it runs now (answered as interrupted if it cannot)`);
      if (finished.size > 0) repaired.push(`added the ${plural(finished.size, 'tool result')} that had finished`);
    }
  }

  // An empty history is no problem: nothing was asked yet, and a new prompt starts it.
  const problems = messages.length === 0 ? [] : historyProblems(messages);
  return {
    messages,
    recordedCount,
    turnCount: resumeTurnCount(records, messages),
    repaired,
    awaitsModel: messages[messages.length - 1]?.role === 'user',
    problems,
    cutAgents: problems.length === 0 ? cutAgents(records, messages) : [],
  };
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}

/** tool_use blocks that started during the last model call, are in no recorded message, and whose reply was not refused. */
function startedDuringLastCall(records: readonly SessionRecord[], messages: readonly MessageParam[]): ToolUseBlock[] {
  const known = new Set(
    messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])))),
  );
  let lastRequest = -1;
  records.forEach((r, i) => {
    if (r.type === 'request') lastRequest = i;
  });
  const started = new Map<string, ToolUseBlock>();
  for (const record of records.slice(lastRequest + 1)) {
    if (record.type === 'tool_start' && !known.has(record.block.id)) started.set(record.block.id, record.block);
    // A refused reply keeps nothing, not even the tools of it that had started.
    if (record.type === 'reply_refused') for (const id of record.startedToolIds) started.delete(id);
  }
  return [...started.values()];
}

/** Results of the given tool_use ids that the transcript recorded as finished. */
function finishedResults(records: readonly SessionRecord[], ids: readonly string[]): Map<string, ToolResultBlockParam> {
  const wanted = new Set(ids);
  const found = new Map<string, ToolResultBlockParam>();
  for (const record of records) {
    if (record.type === 'tool_result' && wanted.has(record.toolUseId)) found.set(record.toolUseId, record.result);
  }
  return found;
}
