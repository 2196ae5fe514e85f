/**
 * The records of a session transcript: one JSON object per line of
 * `$AGENTLOOP_HOME/sessions/<id>.jsonl`, appended in the order things happened.
 *
 * The transcript, not a machine snapshot, is the source of truth for `--resume`: the messages are
 * rebuilt from `message` records, and a tool that was running when the process died is answered,
 * never run again (see resume.ts). Every record's shape is checked when a transcript is read
 * (shapes.ts): a record type added here needs its entry there.
 */
import type { AgentStart, CompactBoundary, MessageOrigin } from '../core/events.js';
import type { ExitReason, TransitionReason } from '../core/outcome.js';
import type { MessageParam, ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import type { ModelRequest } from '../core/model.js';
import type { Usage } from '../core/usage.js';

export const TRANSCRIPT_VERSION = 1;

/** First line of every transcript. */
export interface SessionHeader {
  type: 'session';
  version: typeof TRANSCRIPT_VERSION;
  id: string;
  /** Working directory of the run: `--continue` picks the newest session of the current one. */
  cwd: string;
  createdAt: string;
  model: string;
  /** `--fork-session`: the session this one was forked from (its history is copied, that transcript is untouched). */
  forkedFrom?: string;
  /** What tells this run apart from others with the same prompt (`demo`, `mistake forget-tool-result`, ...): shown by `sessions` and the viewer's picker. */
  label?: string;
}

/**
 * A question from the user (`-p`, the REPL, or the prompt given to `--resume`), written before
 * its run starts. Until a `message` record follows it, the prompt is the history's next user
 * message: a run killed before it wrote the message resumes with it (resume.ts).
 */
export interface PromptRecord {
  type: 'prompt';
  at: string;
  /** The question's text (its text blocks, when it has `content`). */
  text: string;
  /** A question of content blocks (e.g. an image, from `--input-format stream-json`): the message, exactly. */
  content?: PromptBlock[];
}

/** A block of a user's question. */
export type PromptBlock = Exclude<MessageParam['content'], string>[number];

/** A user's question: text, or content blocks. */
export type Question = string | PromptBlock[];

/** The machine entered a state (every model call is one transition into `callingModel`). */
export interface TransitionRecord {
  type: 'transition';
  at: string;
  state: string;
  event: string;
  turnCount: number;
  transitionReason: TransitionReason | null;
  /** Set on the final states. */
  exitReason?: ExitReason | null;
}

/** Which guard of a choice fired (`else` when none did), and where it led. */
export interface DecisionRecord {
  type: 'decision';
  at: string;
  state: string;
  guard: string;
  target: string;
}

/**
 * A message of the conversation at `index`. A later record with the same index replaces the
 * earlier one (user content joined into the last user message).
 */
export interface MessageRecord {
  type: 'message';
  at: string;
  index: number;
  message: MessageParam;
  /** Written by `--resume` to repair a history cut off while a tool ran; never from the model. */
  synthetic?: true;
  /** Who wrote it (core/events.ts `MessageOrigin`); absent in transcripts before it was recorded. */
  origin?: MessageOrigin;
}

/** Where a request carried `cache_control`, as [message index, block index]. */
export type CacheMark = [number, number];

/**
 * A request as sent, without its messages: they are the first `messageCount` messages of the
 * conversation (each one is recorded once), so the transcript grows linearly with the run.
 */
export interface RequestRecord {
  type: 'request';
  at: string;
  turnCount: number;
  messageCount: number;
  body: Omit<ModelRequest, 'messages'>;
  /** The message blocks that carried a `cache_control` breakpoint in this request. */
  messageCacheMarks: CacheMark[];
}

export interface ToolStartRecord {
  type: 'tool_start';
  at: string;
  block: ToolUseBlock;
  /** The tool's public name (`Bash`) and the line that shows the call (`$ ls -A`, `Read src/a.ts`); absent in older transcripts. */
  publicName?: string;
  display?: string;
}

export interface ToolResultRecord {
  type: 'tool_result';
  at: string;
  toolUseId: string;
  name: string;
  result: ToolResultBlockParam;
}

/** A call the permission gate denied (it never ran; its tool_result record follows): the `permission_denied` event. */
export interface PermissionDeniedRecord {
  type: 'permission_denied';
  at: string;
  toolUseId: string;
  /** The tool's public name (`Bash`). */
  toolName: string;
  input: unknown;
  reason: string;
  rule: string | null;
  decidedBy: string;
}

export interface RetryRecord {
  type: 'retry';
  at: string;
  attempt: number;
  delayMs: number;
  /** The error's message. */
  error: string;
  /** The error's kind (`overloaded`, `rate_limit`, ...) and the API's own type, when known. */
  kind?: string;
  apiType?: string;
  turnCount?: number;
  /** The model the next attempt uses. */
  model?: string;
}

/**
 * A reply was refused (it broke the stream protocol, or would have made the history invalid): nothing of it is in
 * the history. The tools of it that had started (`tool_start` records since the last request) were stopped; resume.ts
 * never brings their tool_use blocks back.
 */
export interface ReplyRefusedRecord {
  type: 'reply_refused';
  at: string;
  turnCount: number;
  /** The error's message: what was wrong with the reply. */
  error: string;
  startedToolIds: string[];
}

/** A reply's metadata: its token counts and the run's total so far (and, when known, id, model, stop). */
export interface UsageRecord {
  type: 'usage';
  at: string;
  turnCount: number;
  usage: Usage;
  total: Usage;
  id?: string;
  model?: string;
  stopReason?: string | null;
  costUsd?: number;
  needsFollowUp?: boolean;
}

/** A run ended (one per `-p` run or REPL question). */
export interface ResultRecord {
  type: 'result';
  at: string;
  state: string;
  exitReason: ExitReason | null;
  stopReason: string | null;
  turnCount: number;
  usage: Usage;
  turnUsage: Usage[];
  durationMs: number;
  error?: string;
}

/** The session was picked up again by `--resume` / `--continue`. */
export interface ResumeRecord {
  type: 'resume';
  at: string;
  /** Turn count the resumed run goes on from. */
  turnCount: number;
  /** What had to be repaired, in words (empty when the history was whole). */
  repaired: string[];
  /**
   * The length of the history the resume goes on from: message records before this one at that
   * index or later are not part of it (they were past a gap). Absent in older transcripts.
   */
  messageCount?: number;
  /**
   * Set when this is the start of a session forked from that one (`--fork-session`): the messages
   * after this record are a copy of its history.
   */
  forkedFrom?: string;
}

/**
 * A compaction boundary (docs/loop.md, "Compaction"): the records before it keep the whole conversation; the history
 * goes on from `messages` (the summary message and the exchanges kept), and the `message` records after this one
 * count their indices from it. `--resume` / `--continue` rebuild from the last boundary. Its fields are the machine's
 * CompactBoundary (core/events.ts), with when and in which turn.
 */
export interface CompactBoundaryRecord extends CompactBoundary {
  type: 'compact_boundary';
  at: string;
  turnCount: number;
}

/** A subagent's run, started by the Agent call `toolUseId` (core/agents.ts); its records follow as `agent` records. */
export interface AgentStartRecord extends AgentStart {
  type: 'agent_start';
  at: string;
}

/** One record of a subagent's run, as a transcript of its own would hold it (without its `at`; a nested one's wrapped again). */
export interface AgentRecord {
  type: 'agent';
  at: string;
  toolUseId: string;
  agentId: string;
  record: { type: string } & Record<string, unknown>;
}

/** How a subagent's run ended: its answer is the Agent call's result. */
export interface AgentEndRecord {
  type: 'agent_end';
  at: string;
  toolUseId: string;
  agentId: string;
  agentType: string;
  state: string;
  exitReason: string | null;
  text: string;
  usage: Usage;
  toolUses: number;
  durationMs: number;
}

export type SessionRecord =
  | SessionHeader
  | AgentStartRecord
  | AgentRecord
  | AgentEndRecord
  | PromptRecord
  | TransitionRecord
  | DecisionRecord
  | MessageRecord
  | RequestRecord
  | ToolStartRecord
  | ToolResultRecord
  | PermissionDeniedRecord
  | RetryRecord
  | ReplyRefusedRecord
  | UsageRecord
  | ResultRecord
  | ResumeRecord
  | CompactBoundaryRecord;

export type RecordType = SessionRecord['type'];
