/**
 * What a run announces while it goes, in order. The machine emits most of these itself (XState
 * `emit`); the model call adds what only it sees (`request`, `text`, `stream_event`). `runAgent`
 * hands them to `onEvent`; the transcript recorder, the CLI's printers and the viewer consume them.
 */
import type { MessageParam, StopReason, ToolResultBlockParam, ToolUseBlock } from './messages.js';
import type { ModelRequest, ThinkingPiece } from './model.js';
import type { ExitReason, RunError, TransitionReason } from './outcome.js';
import type { Usage } from './usage.js';

/** The machine's states that are steps of a run (it passes through its choice states). */
export type LoopState =
  | 'callingModel'
  | 'executingTools'
  | 'appendingResults'
  | 'waitingToRetry'
  | 'compacting'
  | 'done'
  | 'failed'
  | 'aborted';

/** The states where a guard picks the way on. */
export type ChoiceState = 'checkingContext' | 'checkingReply' | 'checkingError' | 'appendingResults';

/**
 * Why the history was compacted: the next request was estimated past the threshold (`threshold`), the API refused a
 * request as too long (`prompt_too_long`), or the user asked (`manual`: `/compact`, `compactConversation`).
 */
export type CompactTrigger = 'threshold' | 'prompt_too_long' | 'manual';

/** A compaction boundary: the history before it is summarized (or its old tool results cleared), what follows is sent. */
export interface CompactBoundary {
  trigger: CompactTrigger;
  /** `summary`: the model summarized the history; `cleared`: clearing old tool results was enough. */
  kind: 'summary' | 'cleared';
  /** The history's length before; how many of its messages the summary replaced; how many were kept after it. */
  messagesBefore: number;
  summarized: number;
  kept: number;
  /** Tool results whose content was cleared. */
  clearedResults: number;
  /** Estimated tokens of the request before and after (./history/tokens.ts). */
  tokensBefore: number;
  tokensAfter: number;
  /** The summary the model wrote (absent when clearing was enough). */
  summary?: string;
  /** The history from the boundary on: what the next request sends. */
  messages: MessageParam[];
  /** The summary call's model, usage and cost (counted in the run's), and how long compacting took. */
  model?: string;
  usage?: Usage;
  costUsd?: number;
  durationMs: number;
  /** The user's instructions for the summary (`/compact INSTRUCTIONS`, a PreCompact hook). */
  instructions?: string;
}

/** Who wrote a message into the history. */
export type MessageOrigin =
  /** The user's question (written by runAgent before the machine starts). */
  | 'prompt'
  /** A reply of the model. */
  | 'model'
  /** The tool_result blocks of a turn (with the continuation request after a max_tokens cut). */
  | 'tools'
  /** Only the request to go on after a reply cut by max_tokens (the reply had no tool_use). */
  | 'continuation'
  /** Results for tool_use blocks that could not finish (abort, runner crash). */
  | 'interrupted';

/** Emitted by the machine. */
export type MachineEvent =
  /**
   * The machine entered a state. Every model call is one `transition` into `callingModel`,
   * continuations, `pause_turn` and retries included. `event` is the event that led here.
   */
  | {
      type: 'transition';
      state: LoopState;
      event: string;
      turnCount: number;
      transitionReason: TransitionReason | null;
      exitReason: ExitReason | null;
    }
  /** Which branch of a choice fired: the guard's name, or `else`; `target` is where it leads. */
  | { type: 'decision'; state: ChoiceState; guard: string; target: string }
  /** The history was compacted: the messages from here on are `boundary.messages` (their indices start again at 0). */
  | { type: 'compact_boundary'; turnCount: number; boundary: CompactBoundary }
  /** A tool_use block is complete in the stream: `needsFollowUp` is true from here on. */
  | { type: 'tool_use'; turnCount: number; block: ToolUseBlock }
  /** A message was written to the history at `index`; the same index again means it was replaced. */
  | { type: 'message'; index: number; message: MessageParam; origin: MessageOrigin }
  /** The metadata of the reply just written (its `message` came first). */
  | {
      type: 'reply';
      turnCount: number;
      index: number;
      /** The API's message id and model (absent for a model call that has none, e.g. scripted). */
      id?: string;
      /** The API's request id (the `request-id` header), when the model call has one. */
      requestId?: string;
      model: string;
      stopReason: StopReason | null;
      usage: Usage;
      /** The run's usage so far. */
      total: Usage;
      /** The run's cost so far in USD, from the price table (0 for models it does not know). */
      costUsd: number;
      needsFollowUp: boolean;
      /** A block cut off by max_tokens was left out of the reply (it is never run). */
      droppedIncompleteBlock: boolean;
    }
  /**
   * `publicName` and `display`: the tool's public name (`Bash`) and the line that shows the call (`$ ls -A`,
   * `Read src/a.ts`: toolCallLine), added by runAgent from the run's tools (absent from the machine alone).
   */
  | { type: 'tool_start'; block: ToolUseBlock; publicName?: string; display?: string }
  /**
   * A reply was refused: its stream broke the protocol, or it would make the history invalid. Nothing of it joins the
   * history; it is retried like a broken stream (`retry` follows) or the run fails. `startedToolIds`: its tool_use
   * blocks whose tools had started while it streamed (only concurrency-safe, read-only tools start then; each had its
   * `tool_start`): they are stopped and their results dropped.
   */
  | { type: 'reply_refused'; turnCount: number; error: RunError; startedToolIds: string[] }
  /**
   * `data`: the tool's structured result (ToolOutput.data, e.g. Bash's `{stdout, stderr, ...}`), if it gave one:
   * stream-json's `tool_use_result`. Not in the history, nor in the transcript.
   */
  | { type: 'tool_result'; block: ToolUseBlock; result: ToolResultBlockParam; data?: unknown }
  /** A model call failed and will be made again after `delayMs` (`model`: the one it will use). */
  /**
   * The failed call is tried again after `delayMs` on `model`; with `fallbackFrom`, at once on the fallback model, after
   * `fallbackFrom` answered overloaded 3 times in a row (`attempt` 0: the fallback's failures are counted afresh).
   */
  | { type: 'retry'; turnCount: number; attempt: number; delayMs: number; error: RunError; model: string; fallbackFrom?: string };

/** Reported by the model call. */
export type CallEvent =
  /**
   * A request is about to be sent: exactly the body the model gets, which nothing changes after this (a listener may
   * keep it as it is). `messageCount` is the number of its messages (`body.messages.length`).
   */
  | { type: 'request'; turnCount: number; body: ModelRequest; messageCount: number }
  /** A piece of the model's text, as it streams. */
  | { type: 'text'; delta: string }
  /** A thinking block as it streams: its start, a piece of its thinking, its signature. */
  | { type: 'thinking'; piece: ThinkingPiece }
  /** A raw event of the API stream (only when asked for: `includeStreamEvents`). */
  | { type: 'stream_event'; turnCount: number; event: unknown; requestId?: string };

/** Reported by the permission gate (runAgent's `permissions`, permissions/gate.ts). */
export type GateEvent =
  /**
   * A tool call the gate denied: it never runs, and its `tool_result` (an error saying `reason`) follows. `toolName`:
   * the tool's public name (`Bash`); `rule`: the deny rule that matched; `decidedBy`: a rule, the mode (nobody to ask,
   * or a mode that runs no such call), or whoever was asked. Stream-json's `permission_denials` are these.
   */
  {
      type: 'permission_denied';
      block: ToolUseBlock;
      toolName: string;
      reason: string;
      rule: string | null;
      decidedBy: 'rule' | 'mode' | 'asker' | 'hook';
      /** The rule that would allow the call (`Bash(touch:*)`), when the mode denied it. */
      suggestion?: string;
      /** The call as its tool shows it (`Write a.md`, `$ touch x`: core/tool.ts toolCallLine). */
      call?: string;
    };

/** What starts a subagent's run: the parent's Agent call, the child's id, its agent, task, prompt and model. */
export interface AgentStart {
  toolUseId: string;
  agentId: string;
  agentType: string;
  description: string;
  prompt: string;
  model: string;
}

/**
 * A subagent's run, a child of this one (core/agents.ts): its start, each of its events as it happens (its own
 * subagents' nested the same way), its end. `toolUseId`: the parent's Agent call; `agentId`: the child's id.
 */
export type SubagentEvent =
  | ({ type: 'agent_start' } & AgentStart)
  /**
   * A resumed session takes up a child its last run cut off (run/childResume.ts): its history restored from its records
   * (`messageCount` of them recorded, `repaired` says what was added), going on at `turnCount`. With `why`, it cannot
   * go on, and its call stays answered as interrupted.
   */
  | ({ type: 'agent_resume'; turnCount: number; messageCount: number; repaired: string[]; why?: string } & AgentStart)
  | { type: 'agent_event'; toolUseId: string; agentId: string; agentType: string; event: RunEvent }
  | {
      type: 'agent_end';
      toolUseId: string;
      agentId: string;
      agentType: string;
      state: 'done' | 'failed' | 'aborted';
      exitReason: ExitReason | null;
      text: string;
      usage: Usage;
      toolUses: number;
      durationMs: number;
    };

export type RunEvent = MachineEvent | CallEvent | GateEvent | SubagentEvent;
export type RunEventType = RunEvent['type'];
