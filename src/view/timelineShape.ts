/**
 * The shape of a timeline (timeline.ts builds it): the steps the viewer steps through and the
 * messages, requests, tools, usage and results tied to them. Types only: the page imports them too.
 */
import type { MessageParam, ToolResultBlockParam } from '../core/messages.js';
import type { ExitReason, TransitionReason } from '../core/outcome.js';
import type { Usage } from '../core/usage.js';
import type { CacheMark, RequestRecord, ResultRecord, SessionHeader, SessionRecord } from '../transcript/records.js';
import type { ReplyFacts, StepFacts } from './facts.js';
import type { Decision } from './path.js';
import type { Line } from './texts/line.js';

export interface TimelineStep {
  /** `state`: the machine entered `state`; `reply`: a reply arrived (the machine is in the choice `checkingReply`). */
  kind: 'state' | 'reply';
  state: string;
  event: string;
  at: string;
  turnCount: number;
  transitionReason: TransitionReason | null;
  exitReason: ExitReason | null;
  /** Ids of the diagram's edges that led here from the previous step, in order. */
  edges: string[];
  decisions: Decision[];
  /** What this step does, in sentences made of what its records show (texts/line.ts: rendered in the page's language). */
  say: Line[];
  /** `say` in English, as one paragraph. */
  sentence: string;
  /** The chapter's reason that this step makes visible (reasons.ts), if any. */
  why: Line | null;
  /** The chapter's step(s) (`③`, `④`, ...; empty on a production path) and a short title. */
  lesson: { marks: string; title: Line };
  /** What happened just before or during this step (a prompt, a resume, the end of a run). */
  notes: string[];
  /** On a waitingToRetry step: the error and the wait. */
  retry?: { attempt: number; delayMs: number; error: string };
  /** On a reply step: the reply as received, and what the loop made of it. */
  reply?: ReplyFacts;
  /** What the step's records show (filled by facts.ts). */
  facts: StepFacts;
  /** The step's records: positions [from, to) in `readOrder` of the transcript. */
  records: [number, number];
}

export interface TimelineMessage {
  index: number;
  /** First step at which the message is in the history. */
  step: number;
  message: MessageParam;
  synthetic: boolean;
  origin?: string;
  /** The record was written broken (it is not a valid message): what is wrong with it. */
  broken?: string;
  /** The step at which the loop deleted it from the history. */
  removedAt?: number;
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
  at: string;
  /** The command or input of the tool_use (on a start). */
  input?: unknown;
  /** On a start: the tool's public name and the line its contract shows the call with (absent in older transcripts). */
  publicName?: string;
  display?: string;
  /** On a start: the permission gate denied the call (it never ran): why, and the rule that did, if one did. */
  denied?: { reason: string; rule: string | null };
  result?: ToolResultBlockParam;
  /** The record was written broken (a result without its tool_use_id): what is wrong with it. */
  broken?: string;
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
type EventRecord = { type: 'decision'; at?: string; state: string; guard: string; target: string };
export type AnyRecord = SessionRecord | EventRecord;
