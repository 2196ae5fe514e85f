/**
 * A session transcript as the viewer steps through it. A step is one `transition` record: the
 * machine entered a state (every model call is one, continuations and retries included). Each step
 * carries the edges of the diagram that led to it (decision records pick the branch; path.ts) and
 * a sentence that explains it (explain.ts). Everything else is tied to a step so the page can show
 * the run as it was then:
 * - messages, usage and decisions come before the transition they lead to: the next step;
 *   results written on entry of appendingResults belong to that step when they come after it;
 * - a request belongs to the callingModel step it is sent from (before or after its record);
 * - a retry belongs to the waitingToRetry step; tool starts and results, and a run's result, to
 *   the step they happen in; a prompt or a resume opens the next step.
 */
import type { MessageParam, ToolResultBlockParam } from '../core/messages.js';
import type { ExitReason, TransitionReason } from '../core/run.js';
import type { Usage } from '../core/usage.js';
import type { MachineGraph } from '../diagram/graph.js';
import type { CacheMark, RequestRecord, ResultRecord, SessionHeader, SessionRecord } from '../transcript/records.js';
import { explainStep } from './explain.js';
import { edgesTaken, type Decision } from './path.js';

export interface TimelineStep {
  state: string;
  event: string;
  at: string;
  turnCount: number;
  transitionReason: TransitionReason | null;
  exitReason: ExitReason | null;
  /** Ids of the diagram's edges that led here from the previous step, in order. */
  edges: string[];
  decisions: Decision[];
  /** What this step does and why, in one sentence. */
  sentence: string;
  /** What happened just before or during this step (a prompt, a resume, the end of a run). */
  notes: string[];
  /** On a waitingToRetry step: the error and the wait. */
  retry?: { attempt: number; delayMs: number; error: string };
}

export interface TimelineMessage {
  index: number;
  /** First step at which the message is in the history. */
  step: number;
  message: MessageParam;
  synthetic: boolean;
}

export interface TimelineRequest {
  step: number;
  turnCount: number;
  messageCount: number;
  body: RequestRecord['body'];
  messageCacheMarks: CacheMark[];
}

export interface TimelineTool {
  id: string;
  name: string;
  step: number;
  kind: 'start' | 'result';
  result?: ToolResultBlockParam;
}

export interface TimelineUsage {
  step: number;
  turnCount: number;
  usage: Usage;
  total: Usage;
}

export interface Timeline {
  header: SessionHeader | undefined;
  steps: TimelineStep[];
  messages: TimelineMessage[];
  requests: TimelineRequest[];
  tools: TimelineTool[];
  usage: TimelineUsage[];
  results: Array<ResultRecord & { step: number }>;
  /**
   * Where a request carried fewer messages than the history had: something deleted messages from
   * it (a loop that must not, see src/mistakes/). From `step` on, the older messages at index
   * `length` and beyond are gone.
   */
  truncations: Array<{ step: number; length: number }>;
  /** Lines of the transcript that could not be read. */
  problems: string[];
}

/** Records the machine's own events add (issue 13); read when present. */
type EventRecord =
  | { type: 'decision'; at?: string; state: string; guard: string; target: string }
  | { type: 'transition'; exitReason?: ExitReason | null };
type AnyRecord = SessionRecord | Extract<EventRecord, { type: 'decision' }>;

const errorText = (error: unknown): string =>
  typeof error === 'string' ? error : error && typeof error === 'object' && 'message' in error ? String(error.message) : String(error);

export function buildTimeline(records: readonly AnyRecord[], graph: MachineGraph, problems: string[] = []): Timeline {
  const t: Timeline = { header: undefined, steps: [], messages: [], requests: [], tools: [], usage: [], results: [], truncations: [], problems };
  let notes: string[] = [];
  let decisions: Decision[] = [];
  let retry: TimelineStep['retry'];
  let resumed = false;
  // Messages in the history after the records read so far, and a deletion it may have had.
  let historyLength = 0;
  let cut: { step: number; length: number } | undefined;
  const next = () => t.steps.length;
  const current = () => Math.max(0, t.steps.length - 1);
  const last = () => t.steps[t.steps.length - 1];

  for (const record of records) {
    switch (record.type) {
      case 'session':
        t.header = record;
        break;
      case 'prompt':
        notes.push(`prompt: ${record.text}`);
        break;
      case 'resume':
        resumed = true;
        notes.push(
          `${record.forkedFrom ? `forked from session ${record.forkedFrom}, ` : ''}resumed at turn ${record.turnCount}${record.repaired.length ? `: ${record.repaired.join('; ')}` : ''}`,
        );
        break;
      case 'decision':
        decisions.push({ state: record.state, guard: record.guard, target: record.target });
        break;
      case 'transition': {
        const prev = last();
        const exitReason = (record as { exitReason?: ExitReason | null }).exitReason ?? null;
        const step: TimelineStep = {
          state: record.state,
          event: record.event,
          at: record.at,
          turnCount: record.turnCount,
          transitionReason: record.transitionReason,
          exitReason,
          edges: [],
          decisions,
          sentence: '',
          notes,
          ...(retry && record.state === 'waitingToRetry' ? { retry } : {}),
        };
        const fromStart = !prev || (resumed && notes.length > 0) || record.event === 'xstate.init';
        step.edges = edgesTaken(graph, { from: fromStart ? null : prev.state, to: step.state, event: step.event, decisions, exitReason });
        t.steps.push(step);
        if (step.retry) retry = undefined;
        notes = [];
        decisions = [];
        break;
      }
      case 'message': {
        const origin = (record as { origin?: string }).origin;
        const here = (origin === 'tools' || origin === 'continuation') && last()?.state === 'appendingResults';
        t.messages.push({ index: record.index, step: here ? current() : next(), message: record.message, synthetic: record.synthetic === true });
        if (cut && record.index === cut.length) {
          t.truncations.push(cut);
          historyLength = cut.length;
        }
        cut = undefined;
        historyLength = Math.max(historyLength, record.index + 1);
        break;
      }
      case 'request': {
        const step = last();
        const own = step?.state === 'callingModel' && !t.requests.some((r) => r.step === current());
        // Shorter than the history: a deletion, if the next message is written right after it (a
        // hook that only pruned what is sent leaves the history whole, and it goes on at its end).
        if (record.messageCount < historyLength) cut = { step: own ? current() : next(), length: record.messageCount };
        t.requests.push({
          step: own ? current() : next(),
          turnCount: record.turnCount,
          messageCount: record.messageCount,
          body: record.body,
          messageCacheMarks: record.messageCacheMarks ?? [],
        });
        break;
      }
      case 'usage':
        t.usage.push({ step: next(), turnCount: record.turnCount, usage: record.usage, total: record.total });
        break;
      case 'tool_start':
        t.tools.push({ id: record.block.id, name: record.block.name, step: current(), kind: 'start' });
        break;
      case 'tool_result':
        t.tools.push({ id: record.toolUseId, name: record.name, step: current(), kind: 'result', result: record.result });
        break;
      case 'retry': {
        const info = { attempt: record.attempt, delayMs: record.delayMs, error: errorText(record.error) };
        const step = last();
        if (step?.state === 'waitingToRetry' && !step.retry) step.retry = info;
        else retry = info;
        break;
      }
      case 'result': {
        t.results.push({ ...record, step: current() });
        const step = last();
        if (step && step.exitReason === null && record.exitReason) {
          // An older transcript names the exit reason only here: it tells apart the branches into done.
          step.exitReason = record.exitReason;
          const from = t.steps[t.steps.length - 2]?.state ?? null;
          if (from) step.edges = edgesTaken(graph, { from, to: step.state, event: step.event, decisions: step.decisions, exitReason: step.exitReason });
        }
        if (record.error) step?.notes.push(`run ended: ${record.exitReason ?? record.state} (${record.error})`);
        resumed = false;
        break;
      }
    }
  }
  explainAll(t, graph);
  return t;
}

/** The sentences, once every step knows its messages, request, retry and exit reason. */
function explainAll(t: Timeline, graph: MachineGraph): void {
  const guardOf = (id: string) => graph.edges.find((e) => e.id === id)?.guard ?? null;
  t.steps.forEach((step, i) => {
    const inHistory = t.messages.filter((m) => m.step <= i);
    const reply = [...inHistory].reverse().find((m) => m.message.role === 'assistant')?.message;
    const request = t.requests.find((r) => r.step === i);
    const result = t.results.find((r) => r.step === i);
    step.sentence = explainStep({
      state: step.state,
      from: t.steps[i - 1]?.state ?? null,
      turnCount: step.turnCount,
      transitionReason: step.transitionReason,
      exitReason: step.exitReason,
      guards: step.edges.map(guardOf).filter((g): g is string => g !== null),
      ...(reply ? { reply } : {}),
      added: t.messages.filter((m) => m.step === i).map((m) => ({ index: m.index, message: m.message })),
      ...(request ? { requestMessages: request.messageCount } : {}),
      ...(step.retry ? { retry: step.retry } : {}),
      ...(result?.error ? { error: result.error } : {}),
      resumed: step.notes.some((n) => n.startsWith('resumed')),
    });
  });
}
