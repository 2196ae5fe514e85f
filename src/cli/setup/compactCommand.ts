/**
 * `/compact [instructions]` (issue 42): in the REPL and as a user message on stream-json (how an Agent SDK program
 * asks, `query({ prompt: '/compact ...' })`, answered with Claude Code's lines: ../control/compactTurn.ts), the
 * session's history is compacted now, as Claude Code 2.1.197 does it (recorded in test/history/claudeCompact.json).
 * The boundary is recorded in the session; the PreCompact hook is told `manual`.
 */
import type { CompactBoundary, RunEvent } from '../../core/events.js';
import type { RunHooks } from '../../core/hooks.js';
import type { MessageParam } from '../../core/messages.js';
import { defaultSystemPrompt } from '../../core/prompts.js';
import { addUsage, type Usage } from '../../core/usage.js';
import type { Writable } from 'node:stream';
import { shown } from '../printers/terminal.js';
import type { Question } from '../../transcript/records.js';
import { compactedText } from '../printers/compactLines.js';
import { limitsOf } from './start.js';
import type { SessionSetup } from './runSetup.js';

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
    // The files read are read again from the session's folder, under its permission rules (run/compactFiles.ts).
    cwd: setup.cwd,
    ...(run.permissions ? { permissions: run.permissions } : {}),
    onEvent: (event) => {
      recorder?.onEvent(event);
      recorder?.flush();
      how.onEvent?.(event);
    },
  });
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
