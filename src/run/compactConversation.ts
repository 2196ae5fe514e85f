/**
 * `compactConversation`: compacting a history by hand (`/compact [instructions]` in the REPL and on stream-json, and
 * for a library user), outside a run: the same compaction as the machine's `compacting` state (./compaction.ts),
 * `trigger: "manual"`, always a summary. The boundary is recorded in the session when a recorder is given.
 */
import type { CompactBoundary, RunEvent } from '../core/events.js';
import type { RunHooks } from '../core/hooks.js';
import type { MessageParam } from '../core/messages.js';
import type { ModelCall } from '../core/model.js';
import { knownContextWindow } from '../core/models.js';
import { defaultRunConfig } from '../core/config.js';
import { toolDefinition, type Tool } from '../core/tool.js';
import type { AnthropicModelOptions } from '../anthropic/call.js';
import { compactThreshold, estimateTokens, NO_BASIS } from '../history/tokens.js';
import { compactHistory } from './compaction.js';
import { denyRulesOf, gateOf, type PermissionsOption } from './permissionHooks.js';

export interface CompactConversationOptions {
  model: string;
  /** The model call; default: the Anthropic API through the SDK, with `client` settings. */
  modelCall?: ModelCall;
  client?: AnthropicModelOptions;
  /** The run's system prompt and tools: the summary request carries them as the run's requests do (the cache's prefix). */
  system?: string;
  tools?: Tool[];
  maxTokens?: number;
  contextWindow?: number;
  /** What the summary should keep or focus on (`/compact INSTRUCTIONS`). */
  instructions?: string;
  /** The PreCompact hook (`beforeCompact`), told `manual`. */
  hooks?: Pick<RunHooks, 'beforeCompact'>;
  /** Where the boundary is announced (a session's recorder, a printer): a `compact_boundary` event. */
  onEvent?: (event: RunEvent) => void;
  /** The turn count the boundary is recorded with (the session's next). */
  turnCount?: number;
  transcriptPath?: string;
  signal?: AbortSignal;
  /**
   * The folder the files the conversation read are read again from (default: the process's), by the Read tool of
   * `tools` (none: nothing is attached), and the run's permissions: a file they deny reading is never attached.
   */
  cwd?: string;
  permissions?: PermissionsOption;
}

/** Compacts `messages` now: the boundary, with the history after it (`boundary.messages`) to go on with. */
export async function compactConversation(messages: readonly MessageParam[], options: CompactConversationOptions): Promise<CompactBoundary> {
  const model = options.modelCall ?? (await import('../anthropic/call.js')).createAnthropicModel(options.client ?? {});
  const tools = (options.tools ?? []).map(toolDefinition);
  const base = {
    model: options.model,
    max_tokens: options.maxTokens ?? defaultRunConfig.maxTokens,
    ...(options.system ? { system: options.system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
  };
  const window = options.contextWindow ?? knownContextWindow(options.model);
  const input = {
    trigger: 'manual' as const,
    messages: [...messages],
    base,
    turnCount: options.turnCount ?? 1,
    tokensBefore: estimateTokens(NO_BASIS, messages, { system: base.system, tools: base.tools }),
    window,
    threshold: compactThreshold(window, undefined),
    strategy: 'summary' as const,
    ...(options.instructions ? { instructions: options.instructions } : {}),
  };
  const settings = { ...(options.hooks ? { hooks: options.hooks } : {}), ...(options.transcriptPath ? { transcriptPath: options.transcriptPath } : {}), restore: restoreOf(options) };
  const boundary = await compactHistory(input, model, options.signal ?? new AbortController().signal, settings);
  options.onEvent?.({ type: 'compact_boundary', turnCount: input.turnCount, boundary });
  return boundary;
}

/** How the files read are read again (run/compactFiles.ts): the Read tool of `tools`, the folder, the deny rules. */
function restoreOf(options: CompactConversationOptions) {
  const cwd = options.cwd ?? process.cwd();
  const tools = options.tools ?? [];
  const denyRules = options.permissions ? denyRulesOf(gateOf(options.permissions, cwd, tools).current) : undefined;
  return { tools, cwd, ...(denyRules ? { denyRules } : {}) };
}
