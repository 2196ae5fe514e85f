/**
 * `/compact [instructions]` (issue 42): in the REPL and as a user message on stream-json (how an Agent SDK program
 * asks, `query({ prompt: '/compact ...' })`), the session's history is compacted now, as Claude Code 2.1.197 does it
 * (recorded in test/history/claudeCompact.json): on stream-json its status lines, the `compact_boundary` line, the
 * summary as a synthetic user line, `<local-command-stdout>Compacted </local-command-stdout>` and a result line of
 * no model turn. The boundary is recorded in the session; the PreCompact hook is told `manual`.
 */
import { randomUUID } from 'node:crypto';
import type { CompactBoundary, RunEvent } from '../../core/events.js';
import { CompactionBlocked, type RunHooks } from '../../core/hooks.js';
import type { MessageParam } from '../../core/messages.js';
import { defaultSystemPrompt } from '../../core/prompts.js';
import { addUsage, zeroUsage, type Usage } from '../../core/usage.js';
import type { Writable } from 'node:stream';
import { estimateTokens } from '../../history/tokens.js';
import { thresholdOf } from '../../machine/compaction.js';
import type { AgentOutput } from '../../machine/context.js';
import { shown } from '../printers/terminal.js';
import type { Question } from '../../transcript/records.js';
import { compactBoundaryLines, compactedText, compactingLine } from '../printers/compactLines.js';
import type { HookContext } from '../control/hooks.js';
import { limitsOf } from './start.js';
import type { SessionSetup } from './runSetup.js';
import { jsonLine } from '../printers/terminal.js';

/** The instructions of a `/compact` message ('' for none), or undefined for any other message. */
export function compactCommand(question: Question): string | undefined {
  const text = typeof question === 'string' ? question : question.every((b) => b.type === 'text') ? question.map((b) => (b as { text: string }).text).join('\n') : '';
  const match = /^\/compact(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? (match[1] ?? '').trim() : undefined;
}

/** Compacts the conversation's history now: the boundary (recorded in the session, told to `onEvent`). */
export async function compactNow(
  setup: SessionSetup,
  messages: readonly MessageParam[],
  instructions: string,
  how: { onEvent?: (event: RunEvent) => void; hooks?: Pick<RunHooks, 'beforeCompact'>; signal?: AbortSignal } = {},
): Promise<CompactBoundary> {
  const { compactConversation } = await import('../../run/compactConversation.js');
  const { run } = setup;
  const limits = limitsOf(setup.options, undefined);
  const base = limits.system ?? defaultSystemPrompt(setup.cwd);
  const system = limits.appendSystemPrompt ? `${base}\n\n${limits.appendSystemPrompt}` : base;
  const recorder = setup.session.recorder;
  const hooks = how.hooks ?? run.hooks;
  return compactConversation(messages, {
    model: run.model,
    ...(run.modelCall ? { modelCall: run.modelCall } : {}),
    ...(run.client ? { client: run.client } : {}),
    system,
    tools: [...setup.tools, ...(run.addTools ?? [])],
    ...(limits.maxTokens !== undefined ? { maxTokens: limits.maxTokens } : {}),
    ...(limits.contextWindow !== undefined ? { contextWindow: limits.contextWindow } : {}),
    ...(instructions ? { instructions } : {}),
    ...(hooks?.beforeCompact ? { hooks } : {}),
    ...(recorder ? { transcriptPath: recorder.path } : {}),
    ...(how.signal ? { signal: how.signal } : {}),
    onEvent: (event) => {
      recorder?.onEvent(event);
      recorder?.flush();
      how.onEvent?.(event);
    },
  });
}

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
  const { preCompactHooks } = await import('../control/hooks.js');
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
function resultLine(sessionId: string, durationMs: number, result: string, costUsd: number) {
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

/** What `/compact` in the REPL needs of it (repl.ts). */
interface ReplSide {
  session: { id: string } | undefined;
  setup: SessionSetup | undefined;
  messages: MessageParam[];
  cost: { usage: Usage; costUsd: number };
}

/** `/compact [instructions]` in the REPL: the history compacted now, said in one line; the cost counted. */
export async function compactInRepl(repl: ReplSide, instructions: string, io: { stdout: Writable; stderr: Writable }): Promise<void> {
  if (!repl.setup || repl.messages.length === 0) {
    io.stdout.write('Nothing to compact yet: no question was asked in this session.\n');
    return;
  }
  io.stderr.write('Compacting the conversation...\n');
  try {
    const boundary = await compactNow(repl.setup, repl.messages, instructions);
    repl.messages = boundary.messages;
    repl.cost = { ...repl.cost, usage: addUsage(repl.cost.usage, boundary.usage), costUsd: repl.cost.costUsd + (boundary.costUsd ?? 0) };
    io.stdout.write(`${compactedText(boundary)}\n`);
  } catch (error) {
    io.stderr.write(`agentloop: /compact failed: ${shown(error instanceof Error ? error.message : String(error))} (the conversation is as it was)\n`);
  }
}

/**
 * Claude Code's "Context left until auto-compact: N%", once the context in use comes near the threshold (within 20,000
 * tokens of it, or a fifth of it for a small window); undefined before that, or when no threshold is known.
 */
export function contextLeftLine(context: Pick<AgentOutput, 'config' | 'model' | 'compaction' | 'messages'>): string | undefined {
  const threshold = thresholdOf(context);
  if (threshold === undefined) return undefined;
  const tokens = estimateTokens(context.compaction.basis, context.messages, { system: context.config.system, tools: context.config.tools });
  if (tokens < threshold - Math.min(20_000, threshold / 5)) return undefined;
  return `Context left until auto-compact: ${Math.max(0, Math.round(((threshold - tokens) / threshold) * 100))}%`;
}
