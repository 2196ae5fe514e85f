/**
 * Compacting a history (the machine's `compacting` state, `/compact`, `compactConversation`): old tool results
 * cleared when that is enough, else a summary by the model of everything before a boundary, the recent exchanges kept.
 * The plan is pure (history/compact.ts); this file makes the model call, through the run's own model call, so a
 * durable run journals it like any other (durable/journal.ts) and a replay does not summarize again.
 */
import type { CompactBoundary } from '../core/events.js';
import { CompactionBlocked, type RunHooks } from '../core/hooks.js';
import { ModelError, type ModelCall } from '../core/model.js';
import { costOf } from '../core/pricing.js';
import {
  boundaryIndex,
  clearToolResults,
  compactedHistory,
  lastResultsIndex,
  messagesTokens,
  summaryOf,
  summaryRequest,
  type CompactInput,
} from '../history/compact.js';
import { textOf } from '../history/messages.js';
import { jsonTokens } from '../history/tokens.js';
import { restoreBudget, withAttachments } from '../history/compactFiles.js';
import { restoredFiles, type RestoreOptions } from './compactFiles.js';

export interface CompactOptions {
  /** The PreCompact hook (core/hooks.ts): may add instructions for the summary. */
  hooks?: Pick<RunHooks, 'beforeCompact'>;
  /** Where the whole transcript is: the summary message tells the model (as Claude Code's does). */
  transcriptPath?: string;
  /** The run's Read tool, folder and deny rules: the files the conversation read are read again after the summary (./compactFiles.ts). */
  restore?: RestoreOptions;
}

/** Share of the window the kept tail may take; share it may take after clearing alone; the summary request's room. */
const KEEP_SHARE = 0.1;
const CLEARED_SHARE = 0.5;
const REQUEST_SHARE = 0.9;

export async function compactHistory(input: CompactInput, model: ModelCall, signal: AbortSignal, options: CompactOptions = {}): Promise<CompactBoundary> {
  const started = Date.now();
  if (input.messages.length === 0) throw new ModelError('unknown', 'nothing to compact: the conversation is empty');
  const instructions = await instructionsOf(input, options.hooks);
  const window = input.window ?? input.tokensBefore;
  const prefix = jsonTokens(input.base.system) + jsonTokens(input.base.tools);
  const common = { trigger: input.trigger, messagesBefore: input.messages.length, tokensBefore: input.tokensBefore, ...(instructions ? { instructions } : {}) };
  if (input.strategy === 'auto' && input.trigger !== 'manual') {
    const cleared = clearToolResults(input.messages, lastResultsIndex(input.messages));
    const after = prefix + messagesTokens(cleared.messages);
    if (cleared.cleared > 0 && after <= CLEARED_SHARE * (input.threshold ?? window)) {
      const kept = cleared.messages.length;
      return { ...common, kind: 'cleared', summarized: 0, kept, clearedResults: cleared.cleared, tokensAfter: after, messages: cleared.messages, durationMs: Date.now() - started };
    }
  }
  const boundary = boundaryIndex(input.messages, Math.floor(KEEP_SHARE * window));
  const summarized = input.messages.slice(0, boundary);
  const tail = input.messages.slice(boundary);
  const { request, cleared } = summaryRequest(input.base, summarized, instructions, Math.floor(REQUEST_SHARE * window));
  const reply = await model({ request, turnCount: input.turnCount, onToolUse: () => {} }, signal);
  const summary = summaryOf(textOf(reply.content));
  if (summary === '') throw new ModelError('unknown', `the model gave no summary to compact with (stop reason: ${reply.stopReason ?? 'none'})`);
  const attachments = options.restore ? await restoredFiles(summarized, tail, { budget: restoreBudget(window), ...options.restore }, signal) : [];
  const messages = withAttachments(compactedHistory(summary, summarized, tail, options.transcriptPath), attachments);
  return {
    ...common,
    kind: 'summary',
    summarized: summarized.length,
    kept: tail.length,
    clearedResults: cleared,
    tokensAfter: prefix + messagesTokens(messages),
    summary,
    messages,
    model: reply.model ?? input.base.model,
    usage: reply.usage,
    costUsd: costOf(reply.usage, reply.model ?? input.base.model),
    durationMs: Date.now() - started,
  };
}

/** The instructions for the summary: the caller's, and what the PreCompact hook adds (a hook that blocks throws CompactionBlocked). */
async function instructionsOf(input: CompactInput, hooks: CompactOptions['hooks']): Promise<string | undefined> {
  const given = input.instructions?.trim() || undefined;
  if (!hooks?.beforeCompact) return given;
  const trigger = input.trigger === 'manual' ? 'manual' : 'auto';
  const hook = hooks.beforeCompact.bind(hooks);
  const added = await (async () => hook({ trigger, instructions: given ?? null }))().catch(() => undefined);
  if (added?.block !== undefined) throw new CompactionBlocked(added.block);
  const more = added?.instructions?.trim();
  return [given, more].filter((s) => s !== undefined && s !== '').join('\n\n') || undefined;
}
