/**
 * Checks a step's sentence against the records of its step, replayed here on their own (not with
 * the viewer's code): test/view/lesson/narration.test.ts runs it on the timelines, the browser test on the
 * sentences the page shows. Each claim a sentence makes is matched by a pattern and checked.
 */
import { expect } from 'vitest';
import type { MessageParam } from '../../src/core/messages.js';
import { historyProblems } from '../../src/history/validate.js';
import type { ReadRecord } from '../../src/view/timeline/read.js';

type Rec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The history after the records before `end`, replayed here: a message at index k leaves k + 1 messages. */
export function historyBefore(order: ReadRecord[], end: number): MessageParam[] {
  let history: MessageParam[] = [];
  for (const { record } of order.slice(0, end)) {
    const r = record as Rec;
    if (r.type === 'message') history = [...history.slice(0, r.index), r.message];
  }
  return history;
}

/**
 * The history the loop held before `end`: as historyBefore, but a request that carried fewer messages than were written
 * shows the loop had deleted the rest (src/mistakes' drop-message), so they are gone from then on.
 */
export function liveBefore(order: ReadRecord[], end: number): MessageParam[] {
  let history: MessageParam[] = [];
  for (const { record } of order.slice(0, end)) {
    const r = record as Rec;
    if (r.type === 'message') history = [...history.slice(0, r.index), r.message];
    if (r.type === 'request') history = history.slice(0, r.messageCount);
  }
  return history;
}

/** A call as its tool_start record shows it: the display line, or (an older transcript) `name: command` or the JSON. */
export function shownCall(start: Rec): string {
  if (typeof start.display === 'string') return start.display;
  const input = start.block?.input;
  return `${start.block?.name}: ${typeof input?.command === 'string' ? input.command : JSON.stringify(input ?? null)}`;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const blocks = (m: MessageParam | undefined) => (!m ? [] : typeof m.content === 'string' ? [] : (m.content as Rec[]));
const listed = (text: string) => [...text.matchAll(/messages\[(\d+)\]/g)].map((m) => Number(m[1]));

/** The tool_start records of the turn around position `at` (from its callingModel to the next). */
function startsOfTurn(order: ReadRecord[], at: number): number {
  const calls = order.flatMap((e, i) => (e.record.type === 'transition' && (e.record as Rec).state === 'callingModel' ? [i] : []));
  const from = calls.filter((i) => i <= at).at(-1) ?? 0;
  const to = calls.find((i) => i > at) ?? order.length;
  return order.slice(from, to).filter((e) => e.record.type === 'tool_start').length;
}

export function checkSentence(sentence: string, order: ReadRecord[], range: [number, number], history: MessageParam[]): void {
  const mine = order.slice(range[0], range[1]).map((e) => e.record as Rec);
  const of = (type: string) => mine.filter((r) => r.type === type);
  // No message named that is not in the history, except those named as deleted.
  const deleted = [...sentence.matchAll(/deleted ((?:messages\[\d+\](?:, )?)+)/g)].flatMap((m) => listed(m[1] as string));
  for (const k of listed(sentence)) if (!deleted.includes(k)) expect(k, `messages[${k}] in: ${sentence}`).toBeLessThan(history.length);
  const usage = of('usage')[0];
  const stop = /stop_reason (\w+) and/.exec(sentence)?.[1];
  if (stop) expect(usage?.stopReason).toBe(stop);
  const flag = /needsFollowUp is (true|false)/.exec(sentence)?.[1];
  if (flag) expect(String(usage?.needsFollowUp)).toBe(flag);
  const count = /(\d+|no) tool_use blocks?/.exec(sentence)?.[1];
  if (count) {
    const written = of('message').find((r) => r.message.role === 'assistant');
    const n = written ? blocks(written.message).filter((b) => b.type === 'tool_use').length : startsOfTurn(order, range[0]);
    expect(count === 'no' ? 0 : Number(count), sentence).toBe(n);
  }
  const guard = /the guard that fires is (\S+) → (\w+)/.exec(sentence);
  if (guard) {
    const decision = order.slice(range[1]).find((e) => e.record.type === 'decision')?.record as Rec;
    expect([decision.guard === 'else' ? '[else]' : decision.guard, decision.target]).toEqual([guard[1], guard[2]]);
  }
  for (const [, id] of sentence.matchAll(/bound to tool_use_id (\S+?)[;,.]/g)) expect(of('tool_result').some((r) => r.toolUseId === id && r.result.tool_use_id === id), sentence).toBe(true);
  // "CALL returns ...; ... bound to tool_use_id ID": CALL is the call as its tool_start record shows it.
  for (const m of sentence.matchAll(/ returns(?: \(it started while the reply streamed\))?; its output is wrapped into a tool_result bound to tool_use_id (\S+?)[;,.]/g)) {
    const start = order.slice(0, range[1]).map((e) => e.record as Rec).find((r) => r.type === 'tool_start' && r.block.id === m[1]);
    if (start) expect(sentence.slice(0, m.index), sentence).toMatch(new RegExp(`(?:^|[.:] )${escape(shownCall(start))}$`));
  }
  const appended = /appends messages\[(\d+)\] \(\d+ tool_result blocks? for ([^)]+)\)/.exec(sentence);
  if (appended) {
    const ids = blocks(history[Number(appended[1])]).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []));
    expect(ids.join(', ')).toBe(appended[2]);
  }
  // "appends messages[k]": k is a new place in the history; "writes messages[k] ..., joined to the user message already
  // there": k held a message before the step.
  const held = liveBefore(order, range[0]).length;
  const appends = /appends messages\[(\d+)\]/.exec(sentence)?.[1];
  if (appends) expect(Number(appends), `messages[${appends}] was already in the history (${held} messages): ${sentence}`).toBeGreaterThanOrEqual(held);
  const joined = /writes messages\[(\d+)\][^;]*, joined to the user message already there/.exec(sentence)?.[1];
  if (joined) expect(Number(joined), sentence).toBeLessThan(held);
  if (/without tool_use_id/.test(sentence)) expect(history.some((m) => blocks(m).some((b) => b.type === 'tool_result' && typeof b.tool_use_id !== 'string'))).toBe(true);
  if (/tool results? (?:are|is) in messages|tool_result (?:is|are) in messages/.test(sentence)) expect(history.some((m) => blocks(m).some((b) => b.type === 'tool_result'))).toBe(true);
  if (/are not appended/.test(sentence)) expect(of('message').some((r) => blocks(r.message).some((b) => b.type === 'tool_result'))).toBe(false);
  const reason = /transitionReason (?:is )?(\w+)/.exec(sentence)?.[1];
  if (reason) expect(of('transition').at(-1)?.transitionReason).toBe(reason);
  const exit = /exitReason (\w+)/.exec(sentence)?.[1];
  if (exit) expect(of('transition').at(-1)?.exitReason).toBe(exit);
}

export function checkRequest(sentence: string, order: ReadRecord[], range: [number, number]): void {
  const sends = /sends request (\d+), state\.messages \((\d+) messages?/.exec(sentence);
  if (!sends) return;
  const n = Number(sends[1]);
  const at = order.findIndex((e, i) => i >= range[0] && i < range[1] && e.record.type === 'request');
  expect(order.slice(0, at + 1).filter((e) => e.record.type === 'request')).toHaveLength(n);
  const sent = historyBefore(order, at).slice(0, (order[at]?.record as Rec).messageCount);
  // The count is what the body holds (the messages as read), not only what the record says.
  expect(Number(sends[2]), sentence).toBe(sent.length);
  const invalid = /The history it sends is invalid: (.+)\.$/.exec(sentence)?.[1];
  expect(invalid === undefined ? [] : [invalid]).toEqual(historyProblems(sent).slice(0, invalid === undefined ? 0 : 1));
  const delta = /request \d+ = request \d+ ((?:\+ |with )[^.]*)/.exec(sentence)?.[1];
  if (n > 1) {
    const before = requestAt(order, n - 1);
    const changed = sent.flatMap((m, i) => (JSON.stringify(m) !== JSON.stringify(before[i]) ? [i] : []));
    const added = changed.filter((i) => i >= before.length);
    const rewritten = changed.filter((i) => i < before.length);
    if (!delta) expect(changed, sentence).toEqual([]);
    else {
      expect(listed(/^\+ ([^,]*(?:, messages\[\d+\])*)/.exec(delta)?.[1] ?? '')).toEqual(added);
      expect(listed(/with (messages[^a-z]*) rewritten/.exec(delta)?.[1] ?? '')).toEqual(rewritten);
    }
  }
}

function requestAt(order: ReadRecord[], n: number): MessageParam[] {
  const positions = order.flatMap((e, i) => (e.record.type === 'request' ? [i] : []));
  const at = positions[n - 1] as number;
  return historyBefore(order, at).slice(0, (order[at]?.record as Rec).messageCount);
}


/** Every claim of `sentence`, the sentence of the step whose records are `range` in `order`. */
export function checkStep(sentence: string, order: ReadRecord[], range: [number, number]): void {
  checkSentence(sentence, order, range, historyBefore(order, range[1]));
  checkRequest(sentence, order, range);
}
