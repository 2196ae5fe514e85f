/**
 * How the scripted model answers compaction's request for a summary (history/compact.ts), so that a test of an agent
 * past the context window needs no step of its own for it: a text, a function of the request, or by default a short
 * summary that names the user's latest request.
 */
import type { ModelRequest } from '../core/model.js';
import { latestRequest } from '../history/compact.js';
import type { ScriptedError, ScriptedReply } from './model.js';

type Answer = ScriptedReply | ScriptedError;

export type SummaryOption = string | ((request: ModelRequest) => string | Answer) | false | undefined;

/** The answer to a summary request. */
export function summaryReply(request: ModelRequest, option: Exclude<SummaryOption, false>): Answer {
  const given = typeof option === 'function' ? option(request) : option;
  if (given !== undefined && typeof given !== 'string') return given;
  const latest = latestRequest(request.messages) ?? 'none';
  const text = given ?? `<summary>A conversation of ${request.messages.length} messages. The user's latest request: ${latest.split('\n')[0]}</summary>`;
  return { content: [{ type: 'text', text }], stop_reason: 'end_turn' };
}
