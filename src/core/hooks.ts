/**
 * Hooks an embedder gives `runAgent` to gate or change what the loop does, without touching the
 * machine. Each may be async. None may throw: a hook that throws is treated as stated on it.
 */
import type { MessageParam, ToolUseBlock } from './messages.js';
import type { Tool, ToolOutput } from './tool.js';

/** What `beforeToolCall` decides for one tool call. */
export type ToolCallDecision =
  /** Run it as the model asked (the same as returning nothing). */
  | { action: 'allow' }
  /** Don't run it: the model gets an `is_error` result saying `reason`. */
  | { action: 'deny'; reason: string }
  /**
   * Run it with this input instead (the history keeps the model's own). Whether the call may run
   * beside others was decided on the model's input: keep a changed input as safe as that.
   */
  | { action: 'change'; input: unknown };

export interface ToolCallInfo {
  block: ToolUseBlock;
  /**
   * The tool the call names (hooks see only calls of the run's tools: one of a tool it does not have is answered
   * `No such tool available` without them, as Claude Code does). Its `publicName` is Claude Code's name of it.
   */
  tool: Tool | undefined;
  signal: AbortSignal;
}

export interface RunHooks {
  /**
   * Called before each call of one of the run's tools. Returns a decision, or nothing to allow it. A throw denies
   * the call, with the error's message as the reason.
   * @example
   * beforeToolCall: ({ block }) =>
   *   /rm -rf/.test(String((block.input as { command?: string }).command))
   *     ? { action: 'deny', reason: 'no recursive deletes here' }
   *     : undefined
   */
  beforeToolCall?(call: ToolCallInfo): ToolCallDecision | void | Promise<ToolCallDecision | void>;
  /**
   * Called with each tool's output (also a denied or failed call's) before it becomes the
   * tool_result. Returns the output to use, or nothing to keep it. A throw keeps it.
   */
  afterToolCall?(call: ToolCallInfo & { output: ToolOutput }): ToolOutput | void | Promise<ToolOutput | void>;
  /**
   * Called before each model call with the messages about to be sent; returns the messages to send
   * instead (e.g. older tool results pruned). The history itself is left as it is, and what is
   * sent is still checked against the history invariant. A throw fails the model call.
   */
  transformContext?(messages: readonly MessageParam[], info: { turnCount: number }): MessageParam[] | Promise<MessageParam[]>;
  /**
   * Called before the loop compacts its history (Claude Code's PreCompact): `trigger` is `manual` (`/compact`) or `auto`
   * (near the window, or after a request refused as too long); `instructions` the user's. Returns instructions to add
   * to the summary request, or `block` (who blocked it) to leave the history as it is: `/compact` then says so
   * ("Compaction blocked by PreCompact hook: …", as Claude Code), and an automatic compaction is skipped (the request
   * goes as it is; refused as too long, the run ends with `prompt_too_long`). A throw is ignored.
   */
  beforeCompact?(info: { trigger: 'manual' | 'auto'; instructions: string | null }): CompactHookAnswer | void | Promise<CompactHookAnswer | void>;
}

/** What a PreCompact hook answers (RunHooks.beforeCompact). */
export interface CompactHookAnswer {
  instructions?: string;
  block?: string;
}

/** A compaction a PreCompact hook blocked: the history is left as it is. Its message is Claude Code's. */
export class CompactionBlocked extends Error {
  constructor(readonly by: string) {
    super(`Compaction blocked by PreCompact hook: ${by}`);
    this.name = 'CompactionBlocked';
  }
}
