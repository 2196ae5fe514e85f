/**
 * The lesson checker: every line a step shows (its sentence, its reason, each line of every registered card of
 * src/view/cards/, by the card's rules here, and what the loop's drawing lights) against the transcript's records, replayed here on their own (not with the viewer's code). It reads the English
 * text as shown (test/support/lessonShown.ts gives it from the page's own line builders; a browser
 * test can give it from the page), so it judges what a reader reads. A line it cannot read is a
 * failure too: every line is checked. Returns the contradictions found, one string each.
 */
import type { MessageParam } from '../../src/core/messages.js';
import type { ReadRecord } from '../../src/view/timeline/read.js';
import { checkStep, historyBefore, liveBefore, shownCall } from './narration.js';

type Rec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A card's lines as shown, in a group (the tool card: one group a call, named by its tool_use id). */
export interface ShownCard {
  group?: string;
  lines: string[];
}

export interface ShownStep {
  sentence: string;
  why: string | null;
  /** Each card shown at the step (src/view/cards/), by its name. */
  cards: Record<string, ShownCard[]>;
  diagram: { node: string | null; edge: string | null; label: string | null };
}

export interface Run {
  order: ReadRecord[];
  /** Each step's records: positions [from, to) in `order`. */
  ranges: Array<[number, number]>;
}

const FINAL = new Set(['done', 'failed', 'aborted']);

const MACHINE_WORDS = /TOOLS_DONE|xstate\.|guard that fires|RESULTS_APPENDED/;
const blocks = (m: MessageParam | undefined): Rec[] => (!m || typeof m.content === 'string' ? [] : (m.content as Rec[]));
const resultIds = (m: MessageParam | undefined) => blocks(m).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []));

/** What the records of one step and around it show: the checks' facts. */
class Facts {
  readonly mine: Rec[];
  constructor(
    readonly run: Run,
    readonly i: number,
  ) {
    const [from, to] = run.ranges[i] as [number, number];
    this.mine = run.order.slice(from, to).map((e) => e.record as Rec);
  }
  get range() {
    return this.run.ranges[this.i] as [number, number];
  }
  of = (type: string) => this.mine.filter((r) => r.type === type);
  upTo = (type: string) => this.run.order.slice(0, this.range[1]).map((e) => e.record as Rec).filter((r) => r.type === type);
  after = (type: string) => this.run.order.slice(this.range[1]).map((e) => e.record as Rec).filter((r) => r.type === type);
  /** The reply of this step (its usage record), its written message, its tool_use blocks. */
  reply() {
    const usage = this.of('usage')[0];
    const written = this.of('message').find((r) => r.message.role === 'assistant');
    const uses = written ? blocks(written.message).filter((b) => b.type === 'tool_use').length : this.turnStarts();
    const decision = this.after('decision').find((d) => d.state === 'checkingReply');
    return { usage, uses, target: decision?.target as string | undefined };
  }
  turnStarts(): number {
    return this.turnStartRecords().length;
  }
  turnStartRecords(): Rec[] {
    const calls = this.run.order.flatMap((e, k) => (e.record.type === 'transition' && (e.record as Rec).state === 'callingModel' ? [k] : []));
    const from = calls.filter((k) => k <= this.range[0]).at(-1) ?? 0;
    const to = calls.find((k) => k > this.range[0]) ?? this.run.order.length;
    return this.run.order.slice(from, to).map((e) => e.record as Rec).filter((r) => r.type === 'tool_start');
  }
  /** The reply's calls as their tool_start records show them: each one's display line (an older transcript: `name: command`). */
  calls(): string[] {
    const written = this.of('message').find((r) => r.message.role === 'assistant');
    const starts = this.run.order.map((e) => e.record as Rec).filter((r) => r.type === 'tool_start');
    const uses: Rec[] = written ? blocks(written.message).filter((b) => b.type === 'tool_use') : this.turnStartRecords().map((s) => s.block);
    return uses.map((b) => shownCall(starts.find((s) => s.block.id === b.id) ?? { block: b }));
  }
  ended(): string | undefined {
    return this.upTo('transition').map((r) => r.state as string).find((s) => FINAL.has(s));
  }
  live(): MessageParam[] {
    return liveBefore(this.run.order, this.range[1]);
  }
  /** The first request after this step: its number (from 1) and the messages it carried. */
  nextRequest(): { number: number; sent: MessageParam[]; refused: boolean } | undefined {
    const at = this.run.order.findIndex((e, k) => k >= this.range[1] && e.record.type === 'request');
    if (at < 0) return undefined;
    const number = this.run.order.slice(0, at + 1).filter((e) => e.record.type === 'request').length;
    const sent = historyBefore(this.run.order, at).slice(0, (this.run.order[at]?.record as Rec).messageCount);
    const next = this.run.order.slice(at + 1).find((e) => e.record.type === 'usage' || (e.record.type === 'transition' && (e.record as Rec).state !== 'callingModel'));
    return { number, sent, refused: next?.record.type === 'transition' && (next.record as Rec).state === 'failed' };
  }
}

type Check = (text: string, f: Facts) => string | null | undefined;
const rule = (pattern: RegExp, check: (m: RegExpExecArray, f: Facts) => boolean | string): [RegExp, Check] => [
  pattern,
  (text, f) => {
    const m = pattern.exec(text);
    if (!m) return undefined;
    const verdict = check(m, f);
    return verdict === true ? null : typeof verdict === 'string' ? verdict : 'not what the records show';
  },
];

const stop = (f: Facts) => String(f.reply().usage?.stopReason);

const REPLY_RULES: Array<[RegExp, Check]> = [
  rule(/^stop_reason "?(\w+)"? /, (m, f) => stop(f) === m[1]),
  rule(/^tool_use(?: blocks)? (\d+)(?: (.*?))?(?: \(the reply is not in messages: counted from the tools that started\))?$/, (m, f) => {
    if (Number(m[1]) !== f.reply().uses) return false;
    // The list: each call as the records show it.
    return m[2] === undefined || m[2] === f.calls().join('; ') || `the calls are ${JSON.stringify(f.calls().join('; '))}`;
  }),
  rule(/^needsFollowUp (true|false|—) (.*)$/, (m, f) => {
    const flag = f.reply().usage?.needsFollowUp;
    if (m[1] !== String(flag ?? '—')) return false;
    // "what this loop checks": the loop went on exactly when the flag was set.
    if (/what this loop checks/.test(m[2] as string)) return (f.reply().target === 'executingTools') === (flag === true) || `the loop went to ${f.reply().target} while needsFollowUp is ${flag}`;
    return true;
  }),
  rule(/check .* would (go on and run the tools|stop here): (.*)$/, (m, f) => {
    const runs = m[1] !== 'stop here';
    if (runs !== (stop(f) === 'tool_use')) return false;
    if (/the same as needsFollowUp/.test(m[2] as string)) return runs === (f.reply().usage?.needsFollowUp === true);
    if (/not what the tool_use blocks say/.test(m[2] as string)) return runs !== f.reply().uses > 0;
    return /the same as the tool_use blocks say/.test(m[2] as string) && runs === f.reply().uses > 0;
  }),
  rule(/^the loop took (\S+) → (\w+)/, (m, f) => f.reply().target === m[2]),
  rule(/^the loop went on: it runs the tools$/, (_m, f) => f.reply().target === 'executingTools'),
  rule(/^the loop stopped here$/, (_m, f) => f.reply().target === 'done'),
  rule(/^the loop asks the model to go on/, (_m, f) => f.reply().target === 'appendingResults'),
  rule(/^Why the two checks: /, () => true),
];

const startOf = (f: Facts, id: string) => f.upTo('tool_start').find((r) => r.block.id === id);
const resultOf = (f: Facts, id: string) => f.upTo('tool_result').find((r) => r.toolUseId === id);
const stepOfPosition = (f: Facts, rec: Rec) => {
  const at = f.run.order.findIndex((e) => e.record === rec);
  return f.run.ranges.findIndex(([a, b]) => at >= a && at < b) + 1;
};

function carriesIt(f: Facts, index: number, id: string): boolean {
  const next = f.nextRequest();
  return next !== undefined && resultIds(next.sent[index]).includes(id);
}

const TOOL_RULES = (id: string): Array<[RegExp, Check]> => [
  rule(/^started (\S+), while the reply still streamed/, (m, f) => {
    const s = startOf(f, id);
    if (!s || s.at.slice(11, 23) !== m[1]) return false;
    // No reply of the turn had arrived when it started: after the turn's call, before its usage record.
    const at = f.run.order.findIndex((e) => e.record === s);
    const records = f.run.order.map((e) => e.record as Rec);
    let call = at;
    while (call > 0 && !(records[call]?.type === 'transition' && records[call]?.state === 'callingModel')) call -= 1;
    return !records.slice(call, at).some((r) => r.type === 'usage');
  }),
  rule(/^started (\S+), at step (\d+)/, (m, f) => {
    const s = startOf(f, id);
    return !!s && s.at.slice(11, 23) === m[1] && stepOfPosition(f, s) === Number(m[2]);
  }),
  rule(/^… running/, (_m, f) => !resultOf(f, id) && !f.ended()),
  // A durable run's call that waits for an approval: not answered in the records (no result, no denial), the run not over.
  rule(/^⏸ waiting for approval: .*`agentloop approvals`/, (_m, f) => !resultOf(f, id) && !f.upTo('permission_denied').some((r) => r.toolUseId === id) && !f.ended()),
  rule(/^⛔ denied by the permission (?:gate|rule (\S+)), never run: (.*)$/, (m, f) => {
    const denied = f.upTo('permission_denied').find((r) => r.toolUseId === id);
    return !!denied && denied.reason === m[2] && (denied.rule ?? undefined) === m[1];
  }),
  rule(/^⚠ no result recorded: the run ended \((\w+)\)/, (m, f) => !resultOf(f, id) && f.ended() === m[1]),
  rule(/^✓ returned (\S+) \(\d+ ms after it started\), at step (\d+)/, (m, f) => {
    const r = resultOf(f, id);
    return !!r && r.at.slice(11, 23) === m[1] && stepOfPosition(f, r) === Number(m[2]);
  }),
  rule(/^its output, wrapped into a tool_result bound to tool_use_id (\S+):/, (m, f) => m[1] === id && resultOf(f, id)?.result.tool_use_id === id),
  rule(/^⚠ wrapped into a tool_result WITHOUT its tool_use_id/, (_m, f) => typeof resultOf(f, id)?.result.tool_use_id !== 'string'),
  rule(/^→ in messages\[(\d+)\]: the model sees it in the next request/, (m, f) => {
    const k = Number(m[1]);
    if (!resultIds(f.live()[k]).includes(id)) return false;
    const next = f.nextRequest();
    if (!next) return 'no request follows';
    if (!resultIds(next.sent[k]).includes(id)) return `request ${next.number} does not carry it (${next.sent.length} messages)`;
    return !next.refused || `the API refuses request ${next.number}`;
  }),
  rule(/^→ in messages\[(\d+)\]: request (\d+) carries it to the model/, (m, f) => resultIds(f.live()[Number(m[1])]).includes(id) && f.nextRequest()?.number === Number(m[2]) && carriesIt(f, Number(m[1]), id)),
  rule(/^→ in messages\[(\d+)\] at this step, but request (\d+) does not carry it/, (m, f) => resultIds(f.live()[Number(m[1])]).includes(id) && f.nextRequest()?.number === Number(m[2]) && !carriesIt(f, Number(m[1]), id)),
  rule(/^→ in messages\[(\d+)\]: no request follows, the run ended/, (m, f) => resultIds(f.live()[Number(m[1])]).includes(id) && !f.nextRequest() && f.after('result').length + f.upTo('result').length > 0),
  rule(/^→ in messages\[(\d+)\]: the next request is built from messages/, (m, f) => resultIds(f.live()[Number(m[1])]).includes(id) && !f.nextRequest()),
  rule(/^⚠ the loop wrote it into messages\[(\d+)\] without its tool_use_id/, (m, f) => blocks(f.live()[Number(m[1])]).some((b) => b.type === 'tool_result' && typeof b.tool_use_id !== 'string')),
  rule(/^✂ written into messages\[(\d+)\], then deleted at step (\d+): no later request carries it/, (m, f) => {
    const k = Number(m[1]);
    const written = f.run.order.slice(0, f.range[1]).some((e) => e.record.type === 'message' && (e.record as Rec).index === k && resultIds((e.record as Rec).message).includes(id));
    const later = f.run.order.slice(f.range[0]).flatMap((e, j) => (e.record.type === 'request' ? [historyBefore(f.run.order, f.range[0] + j).slice(0, (e.record as Rec).messageCount)] : []));
    return written && !f.live().some((msg) => resultIds(msg).includes(id)) && later.every((sent) => !sent.some((msg) => resultIds(msg).includes(id)));
  }),
  rule(/^⚠ never written to messages/, (_m, f) => !f.run.order.some((e) => e.record.type === 'message' && resultIds((e.record as Rec).message).includes(id))),
  rule(/^not in messages yet/, (_m, f) => !f.live().some((m) => resultIds(m).includes(id)) && !f.ended()),
];

const WHY_RULES: Array<[RegExp, Check]> = [
  rule(/^Why: state holds more than the request/, (_m, f) => f.of('request').length === 1 && f.upTo('request').length === 1),
  rule(/^Why: the model only asks/, (_m, f) => !!f.reply().usage && f.reply().uses > 0),
  rule(/^Why: in a stream, stop_reason comes last/, (_m, f) => !!f.reply().usage && f.reply().uses > 0 && stop(f) !== 'tool_use'),
  rule(/^Why: no tool_use block, nothing to run/, (_m, f) => !!f.reply().usage && f.reply().uses === 0 && f.reply().target === 'done'),
  rule(/^Why: the tool_use_id binds/, (_m, f) => f.of('tool_result').length > 0),
  rule(/^Why: what is not in messages, the model never sees/, (_m, f) => f.of('transition').some((t) => t.state === 'appendingResults')),
  rule(/^Why: the model remembers nothing between calls\. It knows what happened only because the whole messages\[\] goes again/, (_m, f) => {
    const req = f.of('request')[0];
    const at = f.run.order.findIndex((e) => e.record === req);
    return !!req && f.upTo('request').length > 1 && req.messageCount === historyBefore(f.run.order, at).length;
  }),
  rule(/^Why: the model remembers nothing between calls\. What this request does not carry/, (_m, f) => {
    const req = f.of('request')[0];
    const at = f.run.order.findIndex((e) => e.record === req);
    return !!req && req.messageCount < historyBefore(f.run.order, at).length;
  }),
  rule(/^Why: this loop plus one bash tool is the whole agent/, (_m, f) => f.of('transition').some((t) => t.state === 'done' && t.exitReason === 'completed')),
];

const FEEDS_RULES: Array<[RegExp, Check]> = [
  rule(/request (\d+), sent at this step: \{[^}]*messages: (\d+) \}/, (m, f) => f.of('request').length === 1 && f.upTo('request').length === Number(m[1])),
  rule(/the next request’s body: \{[^}]*messages: (\d+) \}(?: \(request (\d+) was the last sent\)| \(none sent yet\))/, (m, f) =>
    f.ended() ? 'the run has ended: no request follows' : Number(m[1]) === f.live().length && f.upTo('request').length === Number(m[2] ?? 0)),
  rule(/the run has ended: no request follows/, (_m, f) => !!f.ended() && !f.nextRequest()),
];

/** The compaction card: what the step's compact_boundary record says. */
const COMPACT_RULES: Array<[RegExp, Check]> = [
  rule(/^the API refused the request as too long/, (_m, f) => f.of('compact_boundary')[0]?.trigger === 'prompt_too_long'),
  rule(/^asked for by \/compact$/, (_m, f) => f.of('compact_boundary')[0]?.trigger === 'manual'),
  rule(/^the next request would have passed the threshold/, (_m, f) => !['manual', 'prompt_too_long'].includes(f.of('compact_boundary')[0]?.trigger)),
  rule(/^kept in state \(the transcript\): all (\d+) messages, unchanged$/, (m, f) => f.of('compact_boundary')[0]?.messagesBefore === Number(m[1])),
  rule(/^sent from the next step on: (\d+) messages \((?:a summary of (\d+), then (\d+) kept whole|old tool results cleared)\)$/, (m, f) => {
    const b = f.of('compact_boundary')[0];
    if (!b || b.messages.length !== Number(m[1])) return false;
    return m[2] === undefined ? b.kind === 'cleared' : b.kind === 'summary' && b.summarized === Number(m[2]) && b.kept === Number(m[3]);
  }),
  rule(/^tokens of the request: ~([\d,]+) before, ~([\d,]+) after$/, (m, f) => {
    const b = f.of('compact_boundary')[0];
    return !!b && b.tokensBefore === Number(m[1]?.replace(/,/g, '')) && b.tokensAfter === Number(m[2]?.replace(/,/g, ''));
  }),
];

/** The rules of each card the checker reads (a card it has none for is reported: every line is checked). */
const CARD_RULES: Record<string, (group: string | undefined) => Array<[RegExp, Check]>> = {
  reply: () => REPLY_RULES,
  tool: (id) => TOOL_RULES(id ?? ''),
  state: () => FEEDS_RULES,
  compact: () => COMPACT_RULES,
};

function checkLine(text: string, rules: Array<[RegExp, Check]>, f: Facts, where: string, out: string[]): void {
  if (MACHINE_WORDS.test(text)) out.push(`${where}: the machine's words in the lesson: ${text}`);
  for (const [, check] of rules) {
    const verdict = check(text, f);
    if (verdict === undefined) continue;
    if (verdict !== null) out.push(`${where}: ${verdict}: ${text}`);
    return;
  }
  out.push(`${where}: a line the checker cannot read: ${text}`);
}

function checkDiagram(d: ShownStep['diagram'], f: Facts, where: string, out: string[]): void {
  const state = f.of('usage').length ? 'checkingReply' : f.of('transition').at(-1)?.state;
  if (d.node !== null && d.node !== state) out.push(`${where}: the drawing marks ${d.node}, the step is in ${state}`);
  if (!d.edge || !d.label) return;
  const prev = f.i > 0 ? new Facts(f.run, f.i - 1) : undefined;
  const label = d.label;
  const claim = (ok: boolean) => !ok && out.push(`${where}: the drawing lights ${d.edge} “${label}”, not what the records show`);
  if (d.edge === 'checkingReply>executingTools') claim(!!prev && prev.reply().uses > 0 && prev.reply().target === 'executingTools');
  if (d.edge === 'checkingReply>done') {
    if (label === 'no') claim(prev?.reply().usage?.needsFollowUp === false); // the old drawing: "needsFollowUp? → no"
    else if (label === 'no tool_use') claim(!!prev && prev.reply().uses === 0);
    else claim(!!prev && `stop_reason ${stop(prev)}` === label);
  }
  if (MACHINE_WORDS.test(label)) out.push(`${where}: the machine's words in the lesson: ${label}`);
}

/** Every contradiction between what step `i` shows and the records. */
export function checkShown(shown: ShownStep, run: Run, i: number, label: string): string[] {
  const out: string[] = [];
  const f = new Facts(run, i);
  const where = `${label}, step ${i + 1}`;
  if (MACHINE_WORDS.test(shown.sentence)) out.push(`${where}: the machine's words in the sentence: ${shown.sentence}`);
  try {
    checkStep(shown.sentence, run.order, f.range);
  } catch (error) {
    out.push(`${where}: sentence: ${(error as Error).message.split('\n')[0]}: ${shown.sentence}`);
  }
  if (/So the loop goes on/.test(shown.sentence) && f.reply().target !== 'executingTools') out.push(`${where}: it does not go on to the tools: ${shown.sentence}`);
  if (/So the loop stops here/.test(shown.sentence) && f.reply().target !== 'done') out.push(`${where}: it does not stop: ${shown.sentence}`);
  if (/no request of this call is on record/.test(shown.sentence) && f.of('request').length) out.push(`${where}: a request is on record: ${shown.sentence}`);
  if (shown.why) checkLine(shown.why, WHY_RULES, f, `${where} why`, out);
  for (const [name, groups] of Object.entries(shown.cards)) {
    const rules = CARD_RULES[name];
    if (!rules) out.push(`${where}: the ${name} card, which the checker has no rules for`);
    else for (const g of groups) for (const text of g.lines) checkLine(text, rules(g.group), f, `${where} ${name} card${g.group ? ` ${g.group}` : ''}`, out);
  }
  checkDiagram(shown.diagram, f, `${where} drawing`, out);
  return out;
}
