/**
 * A session transcript as the viewer steps through it. A step is a `transition` record (the
 * machine entered a state: every model call is one) or a reply (the `usage` record of a reply
 * that arrived: the machine passes through `checkingReply` and decides there). Each step carries
 * the edges of the diagram that led to it (decision records pick the branch; path.ts), the facts
 * its records show (facts.ts), a sentence made of those facts (explain.ts) and the chapter's step
 * it is (lesson.ts). Everything else is tied to a step so the page can show the run as it was:
 * - messages, usage and decisions come before the step they lead to: the next step;
 * - a request belongs to the callingModel step it is sent from (before or after its record);
 * - a retry belongs to the waitingToRetry step; tool starts and results, and a run's result, to
 *   the step they happen in; a prompt or a resume opens the next step.
 * Records a mistaken loop wrote broken (a tool_result without its tool_use_id) are read from the
 * transcript's damaged lines and kept, marked, where they stood.
 */
import type { MachineGraph } from '../../diagram/graph.js';
import type { DamagedLine } from '../../transcript/store.js';
import type { RequestRecord, ResultRecord } from '../../transcript/records.js';
import { explained } from '../lesson/explain.js';
import { withFacts } from './facts.js';
import type { StepFacts } from './shape.js';
import { edgesTaken, type Decision } from './path.js';
import { readOrder, type ReadRecord } from './read.js';
import type { AnyRecord, Timeline, TimelineStep } from './shape.js';
import { line } from '../texts/line.js';

export type { AnyRecord, Timeline, TimelineMessage, TimelineRequest, TimelineStep, TimelineTool, TimelineUsage } from './shape.js';

const errorText = (error: unknown): string =>
  typeof error === 'string' ? error : error && typeof error === 'object' && 'message' in error ? String(error.message) : String(error);

/** Record types that lead into the next step (everything else belongs to the step it comes in). */
const LEAD_INS = new Set(['prompt', 'resume', 'decision', 'message', 'usage']);

/** Reads the records in order, one handler per record type; `timeline()` gives the result. */
class TimelineBuilder {
  readonly t: Timeline;
  private notes: string[] = [];
  private decisions: Decision[] = [];
  private retry: TimelineStep['retry'];
  private resumed = false;
  /** Messages in the history after the records read so far, and a deletion it may have had. */
  private historyLength = 0;
  private cut: { step: number; length: number } | undefined;
  /** Where the records leading into the next step begin. */
  private leadIn: number | undefined;
  private position = 0;

  constructor(
    private readonly graph: MachineGraph,
    problems: string[],
  ) {
    this.t = { header: undefined, steps: [], messages: [], requests: [], tools: [], usage: [], results: [], truncations: [], problems };
  }

  private next = () => this.t.steps.length;
  private current = () => Math.max(0, this.t.steps.length - 1);
  private last = () => this.t.steps[this.t.steps.length - 1];

  read(entry: ReadRecord, position: number): void {
    this.position = position;
    const { record } = entry;
    if (LEAD_INS.has(record.type)) this.leadIn ??= position;
    switch (record.type) {
      case 'session':
        this.t.header = record;
        break;
      case 'prompt':
        this.notes.push(`prompt: ${record.text}`);
        break;
      case 'resume':
        this.resumed = true;
        this.notes.push(resumeNote(record));
        break;
      case 'decision':
        this.decisions.push({ state: record.state, guard: record.guard, target: record.target });
        break;
      case 'transition':
        return this.transition(record);
      case 'usage':
        return this.usage(record);
      case 'message':
        return this.message(record, entry.broken);
      case 'request':
        return this.request(record);
      case 'tool_start': {
        const { publicName, display } = record;
        this.t.tools.push({ id: record.block.id, name: record.block.name, step: this.current(), kind: 'start', at: record.at, input: record.block.input, ...(publicName ? { publicName } : {}), ...(display ? { display } : {}) });
        break;
      }
      case 'permission_denied': {
        const start = this.t.tools.find((x) => x.kind === 'start' && x.id === record.toolUseId);
        if (start) start.denied = { reason: record.reason, rule: record.rule };
        break;
      }
      case 'tool_result':
        this.t.tools.push({ id: record.toolUseId, name: record.name, step: this.current(), kind: 'result', at: record.at, result: record.result, ...(entry.broken ? { broken: entry.broken } : {}) });
        break;
      case 'retry':
        return this.retryRecord(record);
      case 'result':
        return this.result(record);
      case 'compact_boundary':
        return this.boundary(record);
    }
  }

  /** A compaction boundary: the history goes on from its messages at the next step; every message before stays in the transcript. */
  private boundary(record: Extract<AnyRecord, { type: 'compact_boundary' }>): void {
    const next = this.next();
    for (const m of this.t.messages) if (m.removedAt === undefined && m.step < next) m.removedAt = next;
    record.messages.forEach((message, index) => this.t.messages.push({ index, step: next, message, synthetic: false }));
    this.historyLength = record.messages.length;
    const { trigger, kind, messagesBefore, summarized, kept, tokensBefore, tokensAfter, summary } = record;
    (this.t.boundaries ??= []).push({ step: this.current(), trigger, kind, messagesBefore, summarized, kept, sent: record.messages.length, tokensBefore, tokensAfter, ...(summary ? { summary } : {}) });
  }

  /** A new step; the previous one's records end where this one's lead-in began. */
  private push(step: Omit<TimelineStep, 'records' | 'facts' | 'say' | 'sentence' | 'why' | 'lesson' | 'edges' | 'decisions' | 'notes'>, from: string | null): TimelineStep {
    const start = this.leadIn ?? this.position;
    const prev = this.last();
    if (prev) prev.records[1] = start;
    const full: TimelineStep = { ...step, edges: [], decisions: this.decisions, say: [], sentence: '', why: null, lesson: { marks: '', title: line('title.calls') }, notes: this.notes, facts: {} as StepFacts, records: [start, start + 1] };
    full.edges = edgesTaken(this.graph, { from, to: full.state, event: full.event, decisions: this.decisions, exitReason: full.exitReason });
    this.t.steps.push(full);
    this.notes = [];
    this.decisions = [];
    this.leadIn = undefined;
    return full;
  }

  private transition(record: Extract<AnyRecord, { type: 'transition' }>): void {
    const prev = this.last();
    const fromStart = !prev || (this.resumed && this.notes.length > 0) || record.event === 'xstate.init';
    const step = this.push(
      {
        kind: 'state',
        state: record.state,
        event: record.event,
        at: record.at,
        turnCount: record.turnCount,
        transitionReason: record.transitionReason,
        exitReason: record.exitReason ?? null,
        ...(this.retry && record.state === 'waitingToRetry' ? { retry: this.retry } : {}),
      },
      fromStart ? null : (prev?.state ?? null),
    );
    if (step.retry) this.retry = undefined;
  }

  /** A reply arrived: the machine passes through `checkingReply`, where its decision follows. */
  private usage(record: Extract<AnyRecord, { type: 'usage' }>): void {
    const prev = this.last();
    this.t.usage.push({ step: this.next(), turnCount: record.turnCount, usage: record.usage, total: record.total });
    const step = this.push(
      {
        kind: 'reply',
        state: 'checkingReply',
        event: 'xstate.done.actor.model',
        at: record.at,
        turnCount: record.turnCount,
        transitionReason: prev?.transitionReason ?? null,
        exitReason: null,
      },
      prev?.state ?? 'callingModel',
    );
    const u = record as { stopReason?: string | null; needsFollowUp?: boolean };
    step.reply = { stopReason: u.stopReason ?? null, needsFollowUp: u.needsFollowUp ?? null, index: null, toolUses: [], toolUsesFrom: 'message', teaching: 'stop', guard: null, target: null };
  }

  private message(record: Extract<AnyRecord, { type: 'message' }>, broken: string | undefined): void {
    const origin = record.origin;
    const here = (origin === 'tools' || origin === 'continuation') && this.last()?.state === 'appendingResults';
    const step = here ? this.current() : this.next();
    if (this.cut && record.index === this.cut.length) {
      this.t.truncations.push(this.cut);
      for (const m of this.t.messages) if (m.index >= this.cut.length && m.removedAt === undefined && m.step < this.cut.step) m.removedAt = this.cut.step;
      this.historyLength = this.cut.length;
    }
    this.cut = undefined;
    this.historyLength = Math.max(this.historyLength, record.index + 1);
    this.t.messages.push({
      index: record.index,
      step,
      message: record.message,
      synthetic: record.synthetic === true,
      ...(origin ? { origin } : {}),
      ...(broken ? { broken } : {}),
    });
  }

  private request(record: RequestRecord): void {
    const step = this.last();
    const own = step?.state === 'callingModel' && !this.t.requests.some((r) => r.step === this.current());
    const at = own ? this.current() : this.next();
    // Shorter than the history: a deletion, if the next message is written right after it (a
    // hook that only pruned what is sent leaves the history whole, and it goes on at its end).
    if (record.messageCount < this.historyLength) this.cut = { step: at, length: record.messageCount };
    this.t.requests.push({ step: at, turnCount: record.turnCount, messageCount: record.messageCount, body: record.body, messageCacheMarks: record.messageCacheMarks ?? [] });
  }

  private retryRecord(record: Extract<AnyRecord, { type: 'retry' }>): void {
    const info = { attempt: record.attempt, delayMs: record.delayMs, error: errorText(record.error) };
    const step = this.last();
    if (step?.state === 'waitingToRetry' && !step.retry) step.retry = info;
    else this.retry = info;
  }

  private result(record: ResultRecord): void {
    this.t.results.push({ ...record, step: this.current() });
    const step = this.last();
    if (step && step.exitReason === null && record.exitReason) {
      // An older transcript names the exit reason only here: it tells apart the branches into done.
      step.exitReason = record.exitReason;
      const from = this.t.steps[this.t.steps.length - 2]?.state ?? null;
      if (from) step.edges = edgesTaken(this.graph, { from, to: step.state, event: step.event, decisions: step.decisions, exitReason: step.exitReason });
    }
    if (record.error) step?.notes.push(`run ended: ${record.exitReason ?? record.state} (${record.error})`);
    this.resumed = false;
  }

  finish(end: number): Timeline {
    const last = this.last();
    if (last) last.records[1] = Math.max(last.records[1], end);
    return this.t;
  }
}

function resumeNote(record: Extract<AnyRecord, { type: 'resume' }>): string {
  const forked = record.forkedFrom ? `forked from session ${record.forkedFrom}, ` : '';
  return `${forked}resumed at turn ${record.turnCount}${record.repaired.length ? `: ${record.repaired.join('; ')}` : ''}`;
}

/**
 * The timeline of a transcript: its records, and the lines it could not read (`problems`) and
 * those of them kept as read (`damaged`: a mistaken loop's broken records).
 */
export function buildTimeline(records: readonly AnyRecord[], graph: MachineGraph, problems: string[] = [], damaged: readonly DamagedLine[] = []): Timeline {
  const builder = new TimelineBuilder(graph, problems);
  const order = readOrder(records, damaged);
  order.forEach((entry, position) => builder.read(entry, position));
  // Read, then each step's facts, then its sentences: each pass a new timeline, none filled in place.
  return explained(withFacts(builder.finish(order.length)));
}
