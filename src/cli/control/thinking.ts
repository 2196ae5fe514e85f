/**
 * The Agent SDK's `setMaxThinkingTokens(n, display)` (the `set_max_thinking_tokens` control request) as Claude Code
 * takes it: a budget for the session's next turns (0: off), `null` back to the flags the session started with; the
 * display likewise (`null`: back to the default). Checked as the flags are (../commandLine/sdkFlags.ts); `highlights` is refused
 * (the API takes it only from sessions Anthropic hosts).
 */
import { defaultRunConfig } from '../../core/config.js';
import type { ThinkingDisplay } from '../../core/thinking.js';
import { UsageError } from '../commandLine/argValues.js';
import { checkThinkingRoom, thinkingBudget, thinkingOf, type ThinkingFlags } from '../commandLine/sdkFlags.js';

/** What set_max_thinking_tokens changed: a field left out is as the flags say. */
export interface ThinkingOverride {
  budget?: number;
  display?: ThinkingDisplay | null;
}

/** The override after `request`, or the reason it is refused. */
export function overrideOf(request: Record<string, unknown>, before: ThinkingOverride, flags: ThinkingFlags): ThinkingOverride | { error: string } {
  const next: ThinkingOverride = { ...before };
  const budget = request.max_thinking_tokens;
  const display = request.thinking_display;
  try {
    if (budget === null) delete next.budget;
    else if (budget !== undefined) next.budget = thinkingBudget(String(budget), 'max_thinking_tokens');
    if (display === 'summarized' || display === 'omitted' || display === null) next.display = display;
    else if (display !== undefined) return { error: `thinking_display ${JSON.stringify(display)} is not supported: summarized or omitted (highlights only in sessions Anthropic hosts)` };
    checkThinkingRoom(merged(flags, next));
  } catch (error) {
    if (error instanceof UsageError) return { error: error.message };
    throw error;
  }
  return next;
}

/** The flags as the override changes them. */
function merged(flags: ThinkingFlags, override: ThinkingOverride): ThinkingFlags {
  const out: ThinkingFlags = { ...flags };
  if (override.budget !== undefined) {
    delete out.thinking;
    out.maxThinkingTokens = override.budget;
  }
  if (override.display === null) delete out.thinkingDisplay;
  else if (override.display !== undefined) out.thinkingDisplay = override.display;
  return out;
}

/**
 * A turn's thinking and max_tokens under the override (`thinking` undefined: off; max_tokens as the flags would make
 * it for that setting, the default without a budget), nothing when no override came.
 */
export function thinkingOfTurn(flags: ThinkingFlags, override: ThinkingOverride | undefined) {
  if (override === undefined) return {};
  const { thinking, maxTokens } = thinkingOf(merged(flags, override));
  return { thinking, maxTokens: maxTokens ?? flags.maxTokens ?? defaultRunConfig.maxTokens };
}
