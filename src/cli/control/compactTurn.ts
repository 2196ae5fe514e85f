/**
 * `/compact [instructions]` as a user message on stream-json (how an Agent SDK program asks, `query({ prompt:
 * '/compact ...' })`), as Claude Code 2.1.197 answers it (recorded in test/history/claudeCompact.json): its status
 * lines, the `compact_boundary` line, the summary as a synthetic user line, `<local-command-stdout>Compacted
 * </local-command-stdout>` and a result line of no model turn. The compaction itself is ../setup/compactCommand.ts's.
 */
import { randomUUID } from 'node:crypto';
import { CompactionBlocked } from '../../core/hooks.js';
import type { MessageParam } from '../../core/messages.js';
import { zeroUsage } from '../../core/usage.js';
import { compactBoundaryLines, compactingLine } from '../printers/compactLines.js';
import { jsonLine } from '../printers/terminal.js';
import { compactNow } from '../setup/compactCommand.js';
import type { SessionSetup } from '../setup/runSetup.js';
import type { HookContext } from './hooks.js';

/** What a stream-json session hands `/compact` (streamInput.ts). */
interface CompactStream {
  setup: SessionSetup;
  write: (line: string) => void;
  control: { hookContext(): HookContext; hasHooks(event: 'PreCompact'): boolean };
}

/** `/compact` on stream-json: Claude Code's lines; the history after the boundary (the same on failure, with an error result). */
export async function compactTurn(stream: CompactStream, instructions: string, messages: MessageParam[]): Promise<MessageParam[]> {
  const sessionId = stream.setup.session.id;
  const out = (line: object) => stream.write(jsonLine(line));
  const started = Date.now();
  out(compactingLine(sessionId));
  const { preCompactHooks } = await import('./hooks.js');
  const context = stream.control.hasHooks('PreCompact') ? stream.control.hookContext() : undefined;
  let display: string[] = [];
  const beforeCompact = async (info: { trigger: 'manual' | 'auto'; instructions: string | null }) => {
    const answer = await preCompactHooks(context as HookContext, info);
    display = answer.display;
    return answer;
  };
  try {
    const boundary = await compactNow(stream.setup, messages, instructions, context ? { hooks: { beforeCompact } } : {});
    for (const line of compactBoundaryLines(boundary, sessionId)) out(line);
    const said = `<local-command-stdout>Compacted ${display.join('\n')}</local-command-stdout>`;
    out({ type: 'user', message: { role: 'user', content: said }, session_id: sessionId, parent_tool_use_id: null, uuid: randomUUID(), timestamp: new Date().toISOString(), isReplay: true });
    out(resultLine(sessionId, Date.now() - started, '', boundary.costUsd ?? 0));
    return boundary.messages;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    out({ type: 'system', subtype: 'status', status: null, compact_result: 'failed', compact_error: message, uuid: randomUUID(), session_id: sessionId });
    if (!(error instanceof CompactionBlocked)) out({ ...resultLine(sessionId, Date.now() - started, '', 0), subtype: 'error_during_execution', is_error: true });
    else {
      // As Claude Code: the block is said as the (synthetic) answer, and the command succeeded.
      out(assistantLine(sessionId, message));
      out(resultLine(sessionId, Date.now() - started, message, 0));
    }
    return messages;
  }
}

/** Claude Code's synthetic answer line (model `<synthetic>`, no usage) saying `text`. */
function assistantLine(sessionId: string, text: string) {
  const message = { id: randomUUID(), model: '<synthetic>', role: 'assistant', stop_reason: 'stop_sequence', stop_sequence: '', type: 'message', usage: zeroUsage(), content: [{ type: 'text', text }] };
  return { type: 'assistant', message, parent_tool_use_id: null, session_id: sessionId, uuid: randomUUID() };
}

/** The result line of a local command: no model turn. */
export function resultLine(sessionId: string, durationMs: number, result: string, costUsd: number) {
  return {
    type: 'result',
    subtype: 'success',
    is_error: false,
    duration_ms: durationMs,
    duration_api_ms: 0,
    num_turns: 0,
    result,
    stop_reason: null,
    session_id: sessionId,
    total_cost_usd: costUsd,
    usage: zeroUsage(),
    modelUsage: {},
    permission_denials: [],
    uuid: randomUUID(),
  };
}
