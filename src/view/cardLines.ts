/**
 * What the lesson's cards say at a step, as data (no DOM: the page draws it, the checker reads it,
 * a page without a server can reuse it): the reply card (stop_reason as received, the tool_use
 * blocks counted, needsFollowUp, what the chapter's check on stop_reason would do, where the loop
 * went), the tool card (each tool of the turn: when it started, its result bound to its tool_use_id,
 * where that result is in messages and which request carries it), and the line under the state card
 * (the request sent at this step, or the next one's body, or none after the end).
 */
import type { ToolResultBlockParam } from '../core/messages.js';
import { deltaLine } from './explain.js';
import { commandOf } from './facts.js';
import { FINAL_STATES, messagesAt, requestDelta, requestMessages } from './history.js';
import { line, type Line } from './texts/line.js';
import type { Timeline, TimelineStep, TimelineTool } from './timeline/build.js';

/** One line of a card: a name and a value as recorded (data, never translated), and what it means (a line). */
export interface CardItem {
  name?: string;
  value?: string;
  line: Line | null;
  testid?: string;
  /** `err`: a mistake shows here; `why`: one of the chapter's reasons. */
  tone?: 'err' | 'why';
}

export interface ReplyCard {
  title: Line;
  items: CardItem[];
  /** The chapter's check (`if response.stop_reason != "tool_use": return`): what it would do, and whether the blocks agree. */
  teaching: { runs: boolean; agrees: boolean };
}

export function replyCard(step: TimelineStep): ReplyCard | null {
  const r = step.reply;
  if (!r) return null;
  const n = r.toolUses.length;
  const runs = r.teaching === 'tools';
  const list = r.toolUses.map((u) => u.call).join('; ');
  const branch = r.target === 'executingTools' ? line('card.reply.goesOn') : r.target === 'done' ? line('card.reply.stops') : r.target ? line('card.reply.continues') : null;
  return {
    title: line('card.reply.title', { mark: step.lesson.marks, turn: step.turnCount }),
    teaching: { runs, agrees: runs === n > 0 },
    items: [
      { name: 'stop_reason', value: JSON.stringify(r.stopReason), line: line('card.reply.stopReason'), testid: 'stop-reason' },
      { name: 'tool_use', value: String(n), line: n ? line(r.toolUsesFrom === 'tool_start' ? 'card.reply.usesFromStarts' : 'card.reply.uses', { list }) : null, testid: 'tool-uses' },
      { name: 'needsFollowUp', value: r.needsFollowUp === null ? '—' : String(r.needsFollowUp), line: line('card.reply.flag'), testid: 'needs-follow-up' },
      { line: line('why.streamingCard'), tone: 'why' },
      ...(branch ? [{ line: branch, testid: 'branch' }] : []),
    ],
  };
}

/** The tools of the step's turn up to it (none: no card). */
export function turnStarts(t: Timeline, i: number): TimelineTool[] {
  let from = i;
  while (from > 0 && t.steps[from]?.state !== 'callingModel') from -= 1;
  const step = t.steps[i] as TimelineStep;
  if (step.state === 'callingModel') return [];
  return t.tools.filter((x) => x.kind === 'start' && x.step >= from && x.step <= i);
}

const time = (at: string) => at.slice(11, 23);

export interface ToolEntry {
  start: TimelineTool;
  /**
   * The call as the tool's contract shows it (`$ ls -A`, `Read src/a.ts`), as recorded at its start; an older
   * transcript's start has no such line: then `name` and the command (or the input as JSON).
   */
  head: { name?: string; call: string };
  result: TimelineTool | undefined;
  items: CardItem[];
}

/** One tool of the turn as it stands at step `i`. */
export function toolEntry(t: Timeline, start: TimelineTool, i: number): ToolEntry {
  const result = t.tools.find((x) => x.kind === 'result' && x.id === start.id && x.step <= i);
  const early = t.steps[start.step]?.state === 'callingModel';
  const items: CardItem[] = [{ line: line(early ? 'card.tool.startedEarly' : 'card.tool.started', { time: time(start.at), step: start.step + 1 }) }];
  if (start.denied) items.push({ line: line(start.denied.rule ? 'card.tool.deniedByRule' : 'card.tool.denied', { ...start.denied }), testid: 'tool-denied', tone: 'err' });
  if (!result) {
    const ended = FINAL_STATES.has(t.steps[i]?.state ?? '');
    items.push({ line: ended ? line('card.tool.noResult', { state: t.steps[i]?.state }) : line('card.tool.running'), testid: 'tool-status', ...(ended ? { tone: 'err' as const } : {}) });
  } else {
    const ms = Math.max(0, Date.parse(result.at) - Date.parse(start.at));
    items.push({ line: line('card.tool.returned', { time: time(result.at), ms, step: result.step + 1 }), testid: 'tool-status' });
    const bound = typeof result.result?.tool_use_id === 'string';
    items.push({ line: line(bound ? 'card.tool.wrapped' : 'card.tool.wrappedUnbound', { id: result.id }), ...(bound ? {} : { tone: 'err' as const }) });
    items.push(whereItWent(t, start.id, i));
  }
  const head = start.display !== undefined ? { call: start.display } : { name: start.name, call: commandOf(start.input) };
  return { start, head, result, items };
}

const resultsOf = (m: { message: { content: unknown } }): ToolResultBlockParam[] =>
  typeof m.message.content === 'string' ? [] : (m.message.content as Array<{ type: string }>).filter((b): b is ToolResultBlockParam => b.type === 'tool_result');

/** Where a tool's result is in messages at step `i`, and whether the next request carries it. */
function whereItWent(t: Timeline, id: string, i: number): CardItem {
  const history = messagesAt(t, i);
  const bound = history.find((m) => resultsOf(m).some((b) => b.tool_use_id === id));
  if (bound) return { line: carried(t, i, bound.index, id), testid: 'tool-where' };
  const broken = history.find((m) => resultsOf(m).some((b) => typeof (b as { tool_use_id?: unknown }).tool_use_id !== 'string'));
  if (broken) return { line: line('card.tool.whereUnbound', { index: broken.index }), testid: 'tool-where', tone: 'err' };
  const deleted = t.messages.find((m) => m.removedAt !== undefined && m.removedAt <= i && resultsOf(m).some((b) => b.tool_use_id === id));
  if (deleted) return { line: line('card.tool.whereDeleted', { index: deleted.index, step: (deleted.removedAt as number) + 1 }), testid: 'tool-where', tone: 'err' };
  let from = i;
  while (from > 0 && t.steps[from]?.state !== 'callingModel') from -= 1;
  const appended = t.steps.slice(from, i + 1).some((s) => s.state === 'appendingResults');
  const ended = FINAL_STATES.has(t.steps[i]?.state ?? '');
  if (appended || ended) return { line: line('card.tool.never'), testid: 'tool-where', tone: 'err' };
  return { line: line('card.tool.notYet'), testid: 'tool-where' };
}

/** messages[k] holds the result: the first request after step `i` carries it, or not; or none follows. */
function carried(t: Timeline, i: number, index: number, id: string): Line {
  const k = t.requests.findIndex((r) => r.step > i);
  const req = t.requests[k];
  if (!req) return FINAL_STATES.has(t.steps.at(-1)?.state ?? '') ? line('card.tool.whereEnded', { index }) : line('card.tool.whereNow', { index });
  const sent = requestMessages(t, req);
  const there = sent.some((m) => resultsOf(m).some((b) => b.tool_use_id === id));
  return line(there ? 'card.tool.whereSent' : 'card.tool.whereNotSent', { index, number: k + 1 });
}

/** The line under the state card: the request sent at this step, built from state.messages; or the next one's; or none. */
export function feedsLine(t: Timeline, i: number): Line {
  const k = t.requests.findIndex((r) => r.step === i);
  if (k >= 0) {
    const req = t.requests[k] as Timeline['requests'][number];
    const delta = k === 0 ? line('delta.first') : deltaLine({ number: k + 1, ...requestDelta(t, k) });
    return line('card.state.sent', { number: k + 1, count: requestMessages(t, req).length, delta });
  }
  const count = messagesAt(t, i).length;
  const last = t.requests.reduce((found, r, j) => (r.step <= i ? j + 1 : found), 0);
  if (FINAL_STATES.has(t.steps[i]?.state ?? '')) return line('card.state.ended', { last });
  return line('card.state.next', { count, last });
}
