/**
 * A session transcript as the viewer steps through it. A step is one state the machine settled
 * in (`transition` record). Everything else is tied to a step so the page can show the run as it
 * was at that step:
 * - messages, requests and usage are written in the same macrostep as the transition that
 *   follows them, so they belong to that (next) step;
 * - tool starts and results happen while the machine is in a state, so they belong to the
 *   current step; so do retries and the result of a run;
 * - a prompt or a resume opens the next step.
 */
import type { TransitionReason } from '../core/run.js';
import type { MessageParam, ToolResultBlockParam } from '../core/messages.js';
import type { Usage } from '../core/usage.js';
import type { CacheMark, RequestRecord, ResultRecord, SessionHeader, SessionRecord } from '../session/records.js';

export interface TimelineStep {
  state: string;
  event: string;
  at: string;
  turnCount: number;
  transitionReason: TransitionReason | null;
  /** What happened just before or during this step, in words (a prompt, a resume, a retry, the end). */
  notes: string[];
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
  /** Lines of the transcript that could not be read. */
  problems: string[];
}

export function buildTimeline(records: readonly SessionRecord[], problems: string[] = []): Timeline {
  const timeline: Timeline = {
    header: undefined,
    steps: [],
    messages: [],
    requests: [],
    tools: [],
    usage: [],
    results: [],
    problems,
  };
  let pendingNotes: string[] = [];
  const next = () => timeline.steps.length;
  const current = () => Math.max(0, timeline.steps.length - 1);
  const noteNow = (note: string) => {
    const step = timeline.steps[timeline.steps.length - 1];
    if (step) step.notes.push(note);
    else pendingNotes.push(note);
  };

  for (const record of records) {
    switch (record.type) {
      case 'session':
        timeline.header = record;
        break;
      case 'prompt':
        pendingNotes.push(`prompt: ${record.text}`);
        break;
      case 'resume':
        pendingNotes.push(
          `resumed at turn ${record.turnCount}${record.repaired.length ? `: ${record.repaired.join('; ')}` : ''}`,
        );
        break;
      case 'transition':
        timeline.steps.push({
          state: record.state,
          event: record.event,
          at: record.at,
          turnCount: record.turnCount,
          transitionReason: record.transitionReason,
          notes: pendingNotes,
        });
        pendingNotes = [];
        break;
      case 'message':
        timeline.messages.push({ index: record.index, step: next(), message: record.message, synthetic: record.synthetic === true });
        break;
      case 'request':
        timeline.requests.push({
          step: next(),
          turnCount: record.turnCount,
          messageCount: record.messageCount,
          body: record.body,
          messageCacheMarks: record.messageCacheMarks ?? [],
        });
        break;
      case 'usage':
        timeline.usage.push({ step: next(), turnCount: record.turnCount, usage: record.usage, total: record.total });
        break;
      case 'tool_start':
        timeline.tools.push({ id: record.block.id, name: record.block.name, step: current(), kind: 'start' });
        break;
      case 'tool_result':
        timeline.tools.push({ id: record.toolUseId, name: record.name, step: current(), kind: 'result', result: record.result });
        break;
      case 'retry':
        noteNow(`retry ${record.attempt} in ${record.delayMs} ms: ${record.error}`);
        break;
      case 'result':
        timeline.results.push({ ...record, step: current() });
        noteNow(`run ended: ${record.exitReason ?? record.state}${record.error ? ` (${record.error})` : ''}`);
        break;
    }
  }
  return timeline;
}
