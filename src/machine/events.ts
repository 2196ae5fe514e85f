import type { ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';

/** Events the agent machine accepts. */
export type AgentEvent =
  /** Stop the run: from the user (Ctrl-C, SIGTERM, an AbortSignal). */
  | { type: 'ABORT' }
  /** A tool_use block is complete in the stream (sent by the model actor). */
  | { type: 'TOOL_USE_READY'; block: ToolUseBlock }
  /** A tool began to run (sent by the tool runner; not for the one FINISH named `announced`). */
  | { type: 'TOOL_STARTED'; block: ToolUseBlock }
  /** A tool finished (sent by the tool runner); `data`: its structured result (ToolOutput.data), if it gave one. */
  | { type: 'TOOL_RESULT'; block: ToolUseBlock; result: ToolResultBlockParam; data?: unknown }
  /**
   * Every tool_use of the reply has its result (sent by the tool runner). The result that
   * completed the set comes with it rather than in a TOOL_RESULT of its own: one step less a turn.
   */
  | { type: 'TOOLS_DONE'; last?: { block: ToolUseBlock; result: ToolResultBlockParam; data?: unknown } }
  /** The turn's results are in the history (the machine sends it to itself from appendingResults). */
  | { type: 'RESULTS_APPENDED' };

/** Commands the machine sends to the tool runner. */
export type ToolRunnerCommand =
  /** A complete tool_use from the stream: start it now if it is concurrency-safe. */
  | { type: 'SUBMIT'; block: ToolUseBlock }
  /**
   * The stream ended: these are all the complete tool_use blocks, in order. `announced`: the machine has announced
   * this block's start itself (machine/updates.ts, `startedAtFinish`): start it now, with no TOOL_STARTED for it
   * (one sent anyway is ignored). A runner that does not start that tool at once (one that waits first, as the
   * stepped runner does at its gate) provides the machine's guard `runnerStartsAtFinish` as false: then no FINISH
   * names one, and every start is the runner's to announce.
   */
  | { type: 'FINISH'; blocks: ToolUseBlock[]; announced?: string }
  /** The turn is over (done, retried or aborted): stop whatever still runs; the next SUBMIT starts afresh. */
  | { type: 'CANCEL' };
