/** What a turn that asked for structured output (--json-schema: ../setup/structuredOutput.ts) prints, as Claude Code does. */
import { randomUUID } from 'node:crypto';
import type { JsonResult } from './output.js';

/** How a turn asked for structured output ended: the valid input, or why there is none (undefined: not settled). */
export type StructuredOutcome = { value: unknown } | { failure: string } | undefined;

/** The result line of a turn that asked for structured output, as Claude Code writes it. */
export function structuredResult(line: JsonResult, outcome: StructuredOutcome): JsonResult {
  if (outcome === undefined) return line;
  const { error: _error, errors: _errors, ...rest } = line;
  if ('value' in outcome) return { ...rest, structured_output: outcome.value };
  return { ...rest, subtype: 'error_max_structured_output_retries', is_error: true, terminal_reason: 'completed', exit_reason: 'structured_output_retries', errors: [outcome.failure] };
}

/** Why a turn that asked for structured output failed, if it did. */
export const structuredFailure = (outcome: StructuredOutcome) => (outcome && 'failure' in outcome ? outcome.failure : undefined);

/** The reminder's stream-json `user` line, as Claude Code writes it (a synthetic message). */
export function reminderLine(text: string, sessionId: string) {
  const message = { role: 'user', content: [{ type: 'text', text }] };
  return { type: 'user', message, parent_tool_use_id: null, session_id: sessionId, uuid: randomUUID(), timestamp: new Date().toISOString(), isSynthetic: true };
}
