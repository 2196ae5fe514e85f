/** How a run goes on and how it ends: the reasons the loop records, and the error that ended or delays it, as data. */
import type { ModelError } from './model.js';

/** Why the loop goes on after a state: `null` when it stops. */
export type TransitionReason = 'tool_result' | 'max_tokens_continuation' | 'pause_turn' | 'retry';

/** How a run ended. */
export type ExitReason =
  | 'completed'
  | 'max_turns'
  | 'max_budget'
  | 'max_tokens'
  | 'refusal'
  | 'prompt_too_long'
  | 'model_error'
  | 'tool_runner_error'
  | 'aborted';

/** The error that ended or is delaying a run, as plain data. */
export interface RunError {
  kind: string;
  message: string;
  status?: number;
  apiType?: string;
  /** The API's request id of the failed answer (its `request-id` header), when it had one. */
  requestId?: string;
  /** Whether waiting and calling again may fix it. */
  retryable: boolean;
}

export function toRunError(error: unknown, retryable = false): RunError {
  if (isModelError(error)) {
    return {
      kind: error.kind,
      message: error.message,
      retryable,
      ...(error.details.status !== undefined ? { status: error.details.status } : {}),
      ...(error.details.apiType !== undefined ? { apiType: error.details.apiType } : {}),
      ...(error.details.requestId !== undefined ? { requestId: error.details.requestId } : {}),
    };
  }
  return { kind: 'unknown', message: error instanceof Error ? error.message : String(error), retryable };
}

/** A `ModelError`, also one from another copy of this module. */
export function isModelError(error: unknown): error is ModelError {
  return error instanceof Error && error.name === 'ModelError' && 'kind' in error && 'details' in error;
}

