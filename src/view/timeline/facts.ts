/**
 * What the records of each step show, gathered once the whole timeline is read: the history at the
 * step (messages added, deleted, broken), the request sent and what it adds to the one before, the
 * reply (its stop_reason as received, its tool_use blocks counted, needsFollowUp, the branch the
 * loop took), the tools that started or returned, results that never reached the history, and an
 * invalid history left at the end. The sentences (explain.ts) and the page's cards are made of these.
 */
import type { MessageParam, ToolUseBlock } from '../../core/messages.js';
import { historyProblems } from '../../history/validate.js';
import { FINAL_STATES as FINAL, messagesAt, removedAt, requestDelta, requestMessages } from './history.js';
import type { ReplyFacts, StepFacts, Timeline, TimelineMessage, TimelineStep } from './shape.js';

export type { ReplyFacts, StepFacts, ToolFact } from './shape.js';

type Block = Exclude<MessageParam['content'], string>[number];
const blocksOf = (m: MessageParam | undefined): Block[] => (!m ? [] : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content);

export const commandOf = (input: unknown) => {
  const command = (input as { command?: unknown } | null)?.command; // a damaged transcript may hold any input
  return typeof command === 'string' ? command : JSON.stringify(input ?? null);
};

/**
 * The line a call is shown as: the display line its tool_start recorded (the tool's contract: `$ ls -A`,
 * `Read /abs/a.txt`, an MCP tool's name and JSON), else, in an older transcript, `name: command` (or the input as JSON).
 */
export function callLine(t: Pick<Timeline, 'tools'>, id: string, name: string, input: unknown): string {
  const display = t.tools.find((x) => x.kind === 'start' && x.id === id)?.display;
  return display ?? `${name}: ${commandOf(input)}`;
}

/** What is wrong with a message written broken, in a few words (empty: nothing). */
export function brokenBlocks(message: MessageParam): string[] {
  return blocksOf(message).flatMap((b) => (b.type === 'tool_result' && typeof (b as { tool_use_id?: unknown }).tool_use_id !== 'string' ? ['a tool_result without tool_use_id'] : []));
}

/** The tool_use blocks of a message. */
export function toolUsesIn(message: MessageParam | undefined): ToolUseBlock[] {
  return blocksOf(message).flatMap((b) => (b.type === 'tool_use' ? [b as ToolUseBlock] : []));
}

/** Fills `facts` (and `reply`) of every step. */
/** The timeline with each step's facts (and its reply's, on a reply step): a new timeline, `t` left as it is. */
export function withFacts(t: Timeline): Timeline {
  return { ...t, steps: t.steps.map((step, i) => factsOfStep(t, step, i)) };
}

function factsOfStep(t: Timeline, step: TimelineStep, i: number): TimelineStep {
  const history = messagesAt(t, i);
  const k = t.requests.findIndex((r) => r.step === i);
  const written = writtenAt(t, i, history);
  const facts: StepFacts = {
    history: history.map((m) => m.index),
    added: written.filter((w) => !w.over).map((w) => w.index),
    rewritten: written.filter((w) => w.over).map((w) => w.index),
    removed: removedAt(t, i).map((m) => m.index),
    broken: history.flatMap((m) => (m.broken || brokenBlocks(m.message).length ? [{ index: m.index, what: brokenBlocks(m.message)[0] ?? 'a damaged record' }] : [])),
    ...(k >= 0 ? { request: requestFacts(t, k) } : {}),
    toolStarts: t.tools.filter((x) => x.step === i && x.kind === 'start').map((x) => ({ id: x.id, name: x.name, at: x.at, call: callLine(t, x.id, x.name, x.input) })),
    toolResults: t.tools.filter((x) => x.step === i && x.kind === 'result').map((x) => toolResultFact(t, x)),
    unwritten: step.state === 'appendingResults' || FINAL.has(step.state) ? unwrittenResults(t, i, history) : [],
    historyProblems: FINAL.has(step.state) && history.length > 0 ? historyProblems(history.map((m) => m.message)) : [],
    ...(promptOf(step) !== undefined ? { prompt: promptOf(step) } : {}),
    resumed: step.notes.some((n) => n.includes('resumed at turn')),
    ...(errorOf(t, i) ? { error: errorOf(t, i) } : {}),
    guard: lastGuard(step),
  };
  return { ...step, facts, ...(step.reply ? { reply: replyFacts(t, i, step.reply, history) } : {}) };
}

/** The messages of the history written at step `i`, each over a message the history held there before or not. */
function writtenAt(t: Timeline, i: number, history: TimelineMessage[]): Array<{ index: number; over: boolean }> {
  const before = i > 0 ? messagesAt(t, i - 1) : [];
  return t.messages
    .filter((m) => m.step === i && history[m.index] === m)
    .map((m) => {
      const held = before[m.index];
      return { index: m.index, over: held !== undefined && held !== m && held.removedAt !== i };
    });
}

function requestFacts(t: Timeline, k: number): NonNullable<StepFacts['request']> {
  const req = t.requests[k] as Timeline['requests'][number];
  const sent = requestMessages(t, req);
  // Only a request read whole is judged: a part of it would look invalid for want of what was not read.
  const problems = sent.length === req.messageCount ? historyProblems(sent.map((m) => m.message)) : [];
  return { number: k + 1, messageCount: req.messageCount, readable: sent.length, ...requestDelta(t, k), problems };
}

function toolResultFact(t: Timeline, x: Timeline['tools'][number]): StepFacts['toolResults'][number] {
  const start = t.tools.find((s) => s.kind === 'start' && s.id === x.id);
  const bound = typeof x.result?.tool_use_id === 'string';
  return { id: x.id, name: x.name, at: x.at, call: callLine(t, x.id, x.name, start?.input), bound, isError: x.result?.is_error === true, ...(x.broken ? { broken: x.broken } : {}) };
}

/** Ids of tools that returned in this turn (since the last callingModel step) and answer no block of the history. */
function unwrittenResults(t: Timeline, i: number, history: TimelineMessage[]): string[] {
  let from = i;
  while (from > 0 && t.steps[from]?.state !== 'callingModel') from -= 1;
  const written = new Set(history.flatMap((m) => blocksOf(m.message).flatMap((b) => (b.type === 'tool_result' ? [String((b as { tool_use_id?: unknown }).tool_use_id)] : []))));
  const unbound = history.some((m) => brokenBlocks(m.message).length > 0);
  return t.tools.filter((x) => x.kind === 'result' && x.step >= from && x.step <= i && !written.has(x.id) && !unbound).map((x) => x.id);
}

function replyFacts(t: Timeline, i: number, reply: ReplyFacts, history: TimelineMessage[]): ReplyFacts {
  const written = t.messages.find((m) => m.step === i && m.message.role === 'assistant' && history[m.index] === m);
  let toolUses = toolUsesIn(written?.message).map((b) => ({ id: b.id, name: b.name, call: callLine(t, b.id, b.name, b.input) }));
  let from: ReplyFacts['toolUsesFrom'] = 'message';
  if (!written) {
    // Not in messages: the tools it asked for are known by the starts of this turn.
    const turnEnd = t.steps.findIndex((s, j) => j > i && s.state === 'callingModel');
    const starts = t.tools.filter((x) => x.kind === 'start' && x.step >= i - 1 && (turnEnd < 0 || x.step < turnEnd));
    toolUses = starts.map((x) => ({ id: x.id, name: x.name, call: callLine(t, x.id, x.name, x.input) }));
    from = 'tool_start';
  }
  const decision = t.steps[i + 1]?.decisions.find((d) => d.state === 'checkingReply');
  return {
    ...reply,
    index: written ? written.index : null,
    toolUses,
    toolUsesFrom: from,
    teaching: reply.stopReason === 'tool_use' ? 'tools' : 'stop',
    guard: decision?.guard ?? null,
    target: decision?.target ?? null,
  };
}

function promptOf(step: TimelineStep): string | undefined {
  const note = step.notes.find((n) => n.startsWith('prompt: '));
  return note === undefined ? undefined : note.slice('prompt: '.length);
}

function errorOf(t: Timeline, i: number): string | undefined {
  return t.results.find((r) => r.step === i)?.error;
}

function lastGuard(step: TimelineStep): string | null {
  return step.decisions.at(-1)?.guard ?? null;
}
