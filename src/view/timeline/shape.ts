/**
 * The shape of a timeline (build.ts builds it, read.ts orders its records): the steps the viewer steps through and the
 * messages, requests, tools, usage and results tied to them. Types only: the page imports them too.
 */
import type { MessageParam, ToolResultBlockParam } from '../../core/messages.js';
import type { ExitReason, TransitionReason } from '../../core/outcome.js';
import type { Usage } from '../../core/usage.js';
import type { CacheMark, RequestRecord, ResultRecord, SessionHeader, SessionRecord } from '../../transcript/records.js';
import type { Decision } from './path.js';
import type { Line } from '../texts/line.js';

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
  /**
   * Compaction boundaries (issue 42): at `step` (the `compacting` step) the history was compacted; from the next step
   * on, what is sent is the boundary's messages, while the transcript (the state kept) holds every message before.
   */
  boundaries?: TimelineBoundary[];
  /** Lines of the transcript that could not be read. */
  problems: string[];
  /** The subagents the run started (Agent calls), each with its own timeline (agents.ts). */
  agents?: TimelineAgent[];
}

/** A subagent's run: the Agent call that started it, and its timeline. */
export interface TimelineAgent {
  toolUseId: string;
  agentId: string;
  agentType: string;
  description: string;
  /** The state it ended in; null while it runs (or was cut off). */
  state: string | null;
  timeline: Timeline;
}

/** Records the machine's own events add (issue 13); read when present. */
type EventRecord = { type: 'decision'; at?: string; state: string; guard: string; target: string };
export type AnyRecord = SessionRecord | EventRecord;

/** What the records of a step show (facts.ts gathers them). */
export interface ReplyFacts {
  /** `stop_reason` as the API reported it. */
  stopReason: string | null;
  /** The loop's own flag, as it was recorded (null: an older transcript). */
  needsFollowUp: boolean | null;
  /** Where the reply was written in messages; null when the loop did not append it. */
  index: number | null;
  /** Its tool_use blocks, each with the line it is shown as (callLine). */
  toolUses: Array<{ id: string; name: string; call: string }>;
  /** Where they were counted: in the written reply, or (not written) in the tools that started. */
  toolUsesFrom: 'message' | 'tool_start';
  /** What the teaching loop's check (`stop_reason == "tool_use"`) would do with this reply. */
  teaching: 'tools' | 'stop';
  /** The guard that fired in checkingReply, and where it led. */
  guard: string | null;
  target: string | null;
}

export interface ToolFact {
  id: string;
  name: string;
  at: string;
  /** The call as shown (callLine). */
  call: string;
}

export interface StepFacts {
  /** The history after this step's records (indices in order). */
  history: number[];
  /** Messages first in the history at this step (an index the history did not hold at the step before). */
  added: number[];
  /** Messages written at this step over one the history held at that index (e.g. results joined to a user message). */
  rewritten: number[];
  /** Messages the loop deleted from the history at this step. */
  removed: number[];
  /** Messages in the history at this step that were written broken, and how. */
  broken: Array<{ index: number; what: string }>;
  /** The request sent at this step: its number (from 1), messages carried and readable, what it adds. */
  request?: { number: number; messageCount: number; readable: number; added: number[]; removed: number[]; problems: string[] };
  toolStarts: ToolFact[];
  toolResults: Array<ToolFact & { bound: boolean; isError: boolean; broken?: string }>;
  /** Results of this turn's tools that are in no message of the history (appendingResults, final steps). */
  unwritten: string[];
  /** What the validator finds in the history at this step, on the steps that end a run. */
  historyProblems: string[];
  /** The prompt given at this step, and whether the session was resumed here. */
  prompt?: string;
  resumed: boolean;
  /** The run's error, on the step that ends it. */
  error?: string;
  /** The last guard that fired on the way into this step. */
  guard: string | null;
}

/** A compaction boundary as the viewer shows it (src/view/cards/compact.ts). */
export interface TimelineBoundary {
  step: number;
  trigger: string;
  kind: string;
  /** Messages in the history before it; summarized; kept after the summary; sent from the next step on. */
  messagesBefore: number;
  summarized: number;
  kept: number;
  sent: number;
  tokensBefore: number;
  tokensAfter: number;
  summary?: string;
}
