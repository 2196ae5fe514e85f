/**
 * Compaction on stream-json, as Claude Code 2.1.197 prints it (recorded in test/history/claudeCompact.json): a
 * `system/status` line `compacting` when it starts; when it is done a status line back to `null` with
 * `compact_result: "success"`, the `system/compact_boundary` line with `compact_metadata`, and the summary message as
 * a synthetic `user` line.
 */
import { randomUUID } from 'node:crypto';
import type { CompactBoundary, RunEvent } from '../../core/events.js';
import { statusLine } from './claudeLines.js';

/** The line of the state `compacting` being entered. */
export function compactingLine(sessionId: string) {
  return statusLine(sessionId, { status: 'compacting' });
}

/** Claude Code's trigger: `manual` (`/compact`), else `auto` (near the window, or after a refusal). */
export const claudeTrigger = (boundary: Pick<CompactBoundary, 'trigger'>): 'manual' | 'auto' => (boundary.trigger === 'manual' ? 'manual' : 'auto');

/** The lines of a boundary: the status back, the boundary, the summary message. */
export function compactBoundaryLines(boundary: CompactBoundary, sessionId: string): object[] {
  const done = { ...statusLine(sessionId, { status: null }), compact_result: 'success' };
  const line = {
    type: 'system',
    subtype: 'compact_boundary',
    session_id: sessionId,
    uuid: randomUUID(),
    compact_metadata: {
      trigger: claudeTrigger(boundary),
      pre_tokens: boundary.tokensBefore,
      post_tokens: boundary.tokensAfter,
      cumulative_dropped_tokens: Math.max(0, boundary.tokensBefore - boundary.tokensAfter),
      duration_ms: boundary.durationMs,
    },
  };
  const first = boundary.messages[0];
  const summary = first && first.role === 'user' && boundary.kind === 'summary' ? [summaryLine(first.content, sessionId)] : [];
  return [done, line, ...summary];
}

function summaryLine(content: unknown, sessionId: string): object {
  const text = Array.isArray(content) ? content.map((b: { text?: string }) => b.text ?? '').join('') : content;
  return {
    type: 'user',
    message: { role: 'user', content: text },
    session_id: sessionId,
    parent_tool_use_id: null,
    uuid: randomUUID(),
    timestamp: new Date().toISOString(),
    isReplay: false,
    isSynthetic: true,
  };
}

/** The lines of a run event that concern compaction (none for the others). */
export function compactLinesOf(event: RunEvent, sessionId: string): object[] {
  if (event.type === 'transition' && event.state === 'compacting') return [compactingLine(sessionId)];
  if (event.type === 'compact_boundary') return compactBoundaryLines(event.boundary, sessionId);
  return [];
}

/** The line the terminal shows for a boundary (the REPL, a text-mode run's progress on stderr). */
export function compactedText(boundary: CompactBoundary): string {
  const count = (n: number) => n.toLocaleString('en-US');
  const why = boundary.trigger === 'manual' ? 'Compacted' : boundary.trigger === 'prompt_too_long' ? 'Conversation compacted (the API refused the request as too long)' : 'Conversation compacted (the context window was nearly full)';
  const what = boundary.kind === 'summary' ? `${boundary.summarized} messages summarized, ${boundary.kept} kept` : `${boundary.clearedResults} old tool results cleared`;
  return `${why}: ${what} (~${count(boundary.tokensBefore)} -> ~${count(boundary.tokensAfter)} tokens).`;
}
