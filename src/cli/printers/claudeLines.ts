/**
 * What Claude Code's stream-json lines say that agentloop's events do not say the same way (recorded from Claude Code
 * 2.1.197 in test/cli/sdk/claudeCode.json): the tool's name (`Bash`), a retry's `system/api_retry` line, a tool result's
 * `user` line keys, an API error reported as Claude Code reports it (an `assistant` line with the text
 * `API Error: STATUS MESSAGE`, and a result with `is_error: true` and `api_error_status`), and the result's
 * `terminal_reason`, the `thinking_tokens` lines of a streaming thinking block.
 */
import { randomUUID } from 'node:crypto';
import type { RunEvent } from '../../core/events.js';
import type { ThinkingPiece } from '../../core/model.js';
import type { ExitReason, RunError } from '../../core/outcome.js';
import { publicNameOf, type ToolLookup } from '../../core/tool.js';
import type { RunResult } from '../../run/runAgent.js';

/**
 * A content block with a tool's name in Claude Code's spelling (`tool_use` blocks; the rest as they are): the tool's
 * public name (core/tool.ts: agentloop's `bash` is `Bash`).
 */
export function claudeBlock<T>(block: T, tools: ToolLookup | undefined): T {
  const b = block as { type?: unknown; name?: unknown };
  return b.type === 'tool_use' && typeof b.name === 'string' ? { ...block, name: publicNameOf(tools, b.name) } : block;
}

/** Claude Code's kind of an API error (the SDK's `SDKAssistantMessageError`). */
export function claudeErrorKind(error: RunError): string {
  if (error.kind === 'overloaded' || error.status === 529) return 'overloaded';
  if (error.status === 401 || error.status === 403) return 'authentication_failed';
  if (error.status === 429) return 'rate_limit';
  if (error.status === 404) return 'model_not_found';
  if (error.status !== undefined && error.status >= 500) return 'server_error';
  return 'unknown';
}

/** The `system/api_retry` line of a `retry` event: the call failed and is tried again after `retry_delay_ms`. */
export function apiRetryLine(event: Extract<RunEvent, { type: 'retry' }>, maxRetries: number, sessionId: string) {
  return {
    type: 'system',
    subtype: 'api_retry',
    attempt: event.attempt,
    max_retries: maxRetries,
    retry_delay_ms: event.delayMs,
    error_status: event.error.status ?? null,
    error: claudeErrorKind(event.error),
    session_id: sessionId,
    uuid: randomUUID(),
  };
}

/** Claude Code's `system/model_fallback` line: the call goes to the fallback model after 3 overloaded answers in a row. */
export function modelFallbackLine(event: Extract<RunEvent, { type: 'retry' }>, sessionId: string) {
  const from = event.fallbackFrom ?? event.model;
  return {
    type: 'system',
    subtype: 'model_fallback',
    trigger: 'overloaded',
    original_model: from,
    fallback_model: event.model,
    content: `Switched to ${event.model} due to high demand for ${from}`,
    session_id: sessionId,
    uuid: randomUUID(),
  };
}

/** A tool result as Claude Code's `tool_use_result` text (also the copy's `toolUseResult`, transcript/claudeMirror.ts). */
export function resultText(result: Record<string, unknown>): string {
  const text = typeof result.content === 'string' ? result.content : JSON.stringify(result.content ?? '');
  if (result.is_error !== true) return text;
  const tagged = /^<tool_use_error>([\s\S]*)<\/tool_use_error>$/.exec(text);
  return tagged ? (tagged[1] as string) : `Error: ${text}`;
}

/**
 * The `user` lines of a message that is not the model's, as Claude Code writes them: one line per tool_result block
 * (each with Claude Code's `timestamp` and `tool_use_result`: the tool's structured result from `data`, keyed by
 * tool_use id, else the result's text), then the message's other blocks (a continuation request) in a line of their
 * own; a message without tool results is one line.
 */
export function userLines(message: { role: string; content: unknown }, sessionId: string, data: ReadonlyMap<string, unknown> = new Map()) {
  const line = (content: unknown) => ({ type: 'user', message: { ...message, content }, parent_tool_use_id: null, session_id: sessionId, uuid: randomUUID() });
  const blocks = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
  const results = blocks.filter((b) => b.type === 'tool_result');
  if (results.length === 0) return [line(message.content)];
  const others = blocks.filter((b) => b.type !== 'tool_result');
  const timestamp = new Date().toISOString();
  return [
    ...results.map((b) => {
      const id = String(b.tool_use_id);
      return { ...line([{ ...b, is_error: b.is_error === true }]), timestamp, tool_use_result: data.has(id) ? data.get(id) : resultText(b) };
    }),
    ...(others.length ? [line(others)] : []),
  ];
}

/**
 * Claude Code's `system/status` line: `{status: 'requesting'}` as a model call starts (with partial messages), `{status:
 * null, permissionMode}` once a control request changed the permission mode.
 */
export function statusLine(sessionId: string, fields: { status: string | null; permissionMode?: string }) {
  return { type: 'system', subtype: 'status', ...fields, uuid: randomUUID(), session_id: sessionId };
}

/** An API error that ended the run, as Claude Code reports it: `API Error: 400 message`; undefined for another end. */
export function apiErrorOf(run: RunResult): { status: number | null; text: string } | undefined {
  const { exitReason, error } = run.context;
  if ((exitReason !== 'model_error' && exitReason !== 'prompt_too_long') || !error) return undefined;
  // What the API answered, or no answer; a reply agentloop refused (invalid_reply) is not an API error.
  if (error.status === undefined && error.kind !== 'connection' && error.kind !== 'timeout') return undefined;
  const status = error.status ?? null;
  return { status, text: status === null ? `API Error: ${error.message}` : `API Error: ${status} ${error.message}` };
}

/** The synthetic `assistant` line Claude Code writes for an API error before the result (never in the history). */
export function apiErrorLine(run: RunResult, sessionId: string) {
  const failed = apiErrorOf(run);
  if (!failed || !run.context.error) return undefined;
  const usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: randomUUID(), type: 'message', role: 'assistant', model: '<synthetic>', content: [{ type: 'text', text: failed.text }], stop_reason: 'stop_sequence', stop_sequence: '', usage };
  const requestId = run.context.error.requestId;
  return { type: 'assistant', message, parent_tool_use_id: null, session_id: sessionId, uuid: randomUUID(), error: claudeErrorKind(run.context.error), ...(requestId ? { request_id: requestId } : {}) };
}

const TERMINAL_REASONS: Partial<Record<ExitReason, string>> = {
  max_turns: 'max_turns',
  max_budget: 'budget_exhausted',
  prompt_too_long: 'prompt_too_long',
};

/**
 * The result's `terminal_reason`, as Claude Code names why the turn ended: an API error the result reports is
 * `completed` (as Claude Code says), an interrupt `aborted_tools` or `aborted_streaming` (during a tool or not).
 */
export function terminalReasonOf(run: RunResult, duringTool: boolean): string {
  const reason = run.context.exitReason;
  if (reason === 'aborted') return duringTool ? 'aborted_tools' : 'aborted_streaming';
  return (reason && TERMINAL_REASONS[reason]) ?? 'completed';
}

/**
 * Claude Code's `system`/`thinking_tokens` lines while a thinking block streams (read from its 2.1.197 bundle): each
 * thinking_delta adds ceil(length / 4) tokens to the block's estimate; its signature_delta raises the estimate to
 * ceil(round(0.75 x the signature's length) / 4) when that is more. One line per change, none for an empty delta.
 */
export function thinkingTokensLines(sessionId: string): (piece: ThinkingPiece) => object | undefined {
  let estimated = 0;
  const line = (delta: number) => {
    estimated += delta;
    return { type: 'system', subtype: 'thinking_tokens', estimated_tokens: estimated, estimated_tokens_delta: delta, uuid: randomUUID(), session_id: sessionId };
  };
  return (piece) => {
    if ('start' in piece) estimated = 0;
    else if ('thinking' in piece) return piece.thinking === '' ? undefined : line(Math.ceil(piece.thinking.length / 4));
    else if (estimated > 0) {
      const bySignature = Math.ceil(Math.round(piece.signature.length * 0.75) / 4);
      if (bySignature > estimated) return line(bySignature - estimated);
    }
    return undefined;
  };
}
