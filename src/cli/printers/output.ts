import { randomUUID } from 'node:crypto';
import { toolResultText } from '../../core/messages.js';
import type { ExitReason } from '../../core/outcome.js';
import type { Usage } from '../../core/usage.js';
import type { RunEvent } from '../../core/events.js';
import type { RunResult } from '../../run/runAgent.js';
import { plural } from '../../core/plural.js';
import { shown } from './terminal.js';
import { toolCallLine, type Tool } from '../../core/tool.js';
import { apiErrorOf, terminalReasonOf } from './claudeLines.js';

/** Usage and cost of one model over a run, as Claude Code's `modelUsage` has them. */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
}

/** The context window modelUsage reports: the API's standard 200k tokens (agentloop asks for no 1M-token beta). */
const CONTEXT_WINDOW = 200_000;

/** A model's usage before its first call, as Claude Code's `modelUsage` holds it (`maxOutputTokens`: the run's max_tokens). */
export function emptyModelUsage(maxOutputTokens: number): ModelUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, webSearchRequests: 0, costUSD: 0, contextWindow: CONTEXT_WINDOW, maxOutputTokens };
}

/**
 * The result's `usage` as Claude Code 2.1.197 writes it: the token counts, then the keys of the API's usage that
 * agentloop does not sum (no server tools; no 1-hour cache: every cache write is a 5-minute one, agentloop's
 * breakpoints' default), with the values they have for its calls.
 */
export function claudeUsage(usage: Usage) {
  return {
    input_tokens: usage.input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    output_tokens: usage.output_tokens,
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: 'standard',
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: usage.cache_creation_input_tokens },
    inference_geo: '',
    iterations: [] as unknown[],
    speed: 'standard',
  };
}

/** A tool call a permission rule denied (it never ran). */
export interface PermissionDenial {
  /** The tool's public name (`Bash`: core/tool.ts). */
  tool_name: string;
  tool_use_id: string;
  tool_input: unknown;
}

/** What the result reports that the run's final context does not hold (src/cli/printers/streamJson.ts measures it). */
export interface RunFacts {
  durationApiMs: number;
  modelUsage: Record<string, ModelUsage>;
  permissionDenials?: PermissionDenial[];
  /** From the run's start to its first request, and from that request to the first of its reply (ms). */
  timeToRequestMs?: number;
  ttftMs?: number;
  /** Whether a tool was running when the run ended (an interrupt's `terminal_reason`). */
  duringTool?: boolean;
  /** The turns a resumed session had counted before this run's first model call: `num_turns` counts this run's. */
  turnsBefore?: number;
}

/**
 * The `--output-format json` result, and the last line of stream-json: Claude Code's result, with agentloop's
 * `stop_reason`, `exit_reason` and `error` (the one-line reason of a failed run) besides.
 */
export interface JsonResult {
  type: 'result';
  subtype: 'success' | 'error_max_turns' | 'error_max_budget_usd' | 'error_during_execution' | 'error_max_structured_output_retries';
  is_error: boolean;
  duration_ms: number;
  duration_api_ms: number;
  num_turns: number;
  result: string;
  session_id: string;
  total_cost_usd: number;
  usage: ReturnType<typeof claudeUsage>;
  modelUsage: Record<string, ModelUsage>;
  permission_denials: PermissionDenial[];
  uuid: string;
  stop_reason: string | null;
  /** Claude Code's: the API error's HTTP status when an API error ended the run, else null. */
  api_error_status: number | null;
  /** Claude Code's name of why the turn ended (./claudeLines.ts). */
  terminal_reason: string;
  fast_mode_state: 'off';
  ttft_ms?: number;
  ttft_stream_ms?: number;
  time_to_request_ms?: number;
  /** agentloop's ExitReason; `structured_output_retries` when --json-schema's calls ran out (../setup/structuredOutput.ts). */
  exit_reason: ExitReason | 'structured_output_retries' | null;
  /** --json-schema: the model's valid answer (../setup/structuredOutput.ts). */
  structured_output?: unknown;
  /** Claude Code's list of what went wrong, for a run that failed. */
  errors?: string[];
  error?: string;
}

const SUBTYPES: Partial<Record<string, JsonResult['subtype']>> = { max_turns: 'error_max_turns', max_budget: 'error_max_budget_usd' };

/**
 * The result of a run. An API error that ended it is reported as Claude Code reports it: subtype `success` with
 * `is_error: true`, `result` the error's text (`API Error: 400 ...`) and `api_error_status` its HTTP status.
 */
export function toJsonResult(run: RunResult, facts: RunFacts): JsonResult {
  const { context } = run;
  const success = context.exitReason === 'completed';
  const why = success ? '' : describeError(run);
  const apiError = apiErrorOf(run);
  return {
    type: 'result',
    subtype: success || apiError ? 'success' : SUBTYPES[context.exitReason ?? ''] ?? 'error_during_execution',
    is_error: !success,
    api_error_status: apiError?.status ?? null,
    duration_ms: run.durationMs,
    duration_api_ms: facts.durationApiMs,
    ...(success && facts.ttftMs !== undefined ? { ttft_ms: facts.ttftMs, ttft_stream_ms: facts.ttftMs } : {}),
    ...(success && facts.timeToRequestMs !== undefined ? { time_to_request_ms: facts.timeToRequestMs } : {}),
    num_turns: context.turnCount - (facts.turnsBefore ?? 0),
    result: apiError?.text ?? run.text,
    stop_reason: context.stopReason,
    session_id: run.sessionId,
    total_cost_usd: context.costUsd,
    usage: claudeUsage(context.usage),
    modelUsage: facts.modelUsage,
    permission_denials: facts.permissionDenials ?? [],
    terminal_reason: terminalReasonOf(run, facts.duringTool === true),
    fast_mode_state: 'off',
    uuid: randomUUID(),
    exit_reason: context.exitReason,
    ...(why ? { errors: [why] } : {}),
    ...(context.error ? { error: describeError(run) } : {}),
  };
}

/** One line on why a run did not complete, for stderr. */
export function describeError(run: RunResult): string {
  const { context } = run;
  const error = context.error;
  const api = error?.apiType ? `${error.apiType}: ` : '';
  switch (context.exitReason) {
    case 'prompt_too_long':
      return `The conversation is too long for the model (${api}${error?.message ?? ''}).`;
    case 'model_error':
      return `The model call failed${context.recovery.retryAttempt > 1 ? ` after ${context.recovery.retryAttempt} attempts` : ''}: ${api}${error?.message ?? ''}`;
    case 'tool_runner_error':
      return `The tool runner failed: ${error?.message ?? ''}`;
    case 'max_turns':
      return `Stopped after ${plural(context.turnCount, 'turn')} (--max-turns).`;
    case 'max_budget':
      return `Stopped: the run cost $${context.costUsd.toFixed(4)}, past the budget of $${context.config.maxBudgetUsd ?? 0} (--max-budget-usd).`;
    case 'max_tokens':
      return 'Stopped: the reply was still cut by max_tokens after 3 continuations (raise --max-tokens).';
    case 'refusal':
      return 'The model declined to continue (stop_reason: refusal).';
    case 'aborted':
      return 'Interrupted.';
    default:
      return error ? `${api}${error.message}` : '';
  }
}

export function exitCodeOf(run: RunResult): number {
  return run.context.exitReason === 'completed' ? 0 : 1;
}

const PREVIEW_LINES = 5;

/** A tool call as its tool shows it (`$ ls -A`, `Read src/a.ts`: core/tool.ts toolCallLine), as a terminal may show it (./terminal.ts). */
export function formatToolStart(event: Extract<RunEvent, { type: 'tool_start' }>, tool: Tool | undefined): string {
  return shown(toolCallLine(tool, event.block.name, event.block.input));
}

/** The first lines of a tool's output, as the CLI shows them. */
export function formatToolResult(event: Extract<RunEvent, { type: 'tool_result' }>): string {
  const text = shown(toolResultText(event.result.content));
  const lines = text.split('\n');
  const head = lines.slice(0, PREVIEW_LINES).map((l) => `  ${l.length > 200 ? `${l.slice(0, 200)}…` : l}`);
  if (lines.length > PREVIEW_LINES) head.push(`  … (${lines.length - PREVIEW_LINES} more lines)`);
  return head.join('\n');
}

/** Colours for stderr, off with NO_COLOR or when stderr is not a terminal. */
export function palette(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv) {
  const on = stream.isTTY === true && !env.NO_COLOR;
  const wrap = (code: string) => (s: string) => (on ? `\x1b[${code}m${s}\x1b[0m` : s);
  return { dim: wrap('2'), bold: wrap('1'), red: wrap('31'), cyan: wrap('36') };
}
