/**
 * The host's hooks and permission prompts over the control protocol: each hook event the host registered in
 * `initialize` becomes a `hook_callback` request per matching callback, with Claude Code's hook input, and its answer
 * has Claude Code's effects: PreToolUse denies (`permissionDecision: "deny"`, `decision: "block"`), allows without the
 * permission check, or changes the input (`updatedInput`); PostToolUse adds context for the model
 * (`additionalContext`, a block's `reason`); UserPromptSubmit blocks the prompt or adds context; Stop with
 * `decision: "block"` sends its reason to the model and the turn goes on. With `--permission-prompt-tool stdio`, a
 * call the permission mode would not run is asked about with `can_use_tool`.
 */
import type { RunHooks, ToolCallDecision, ToolCallInfo } from '../../core/hooks.js';
import type { ToolUseBlock } from '../../core/messages.js';
import type { ControlChannel } from './channel.js';
import type { HookEvent, SdkSetup } from './initialize.js';
import { publicToolName, type PermissionUpdate, type Tool, type ToolOutput } from '../../core/tool.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a hook matcher applies to `target` (a tool name): absent, empty and `*` match all; else a regular expression. */
export function matcherMatches(matcher: string | undefined, target: string): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(target);
  } catch {
    return matcher === target;
  }
}

export interface HookContext {
  channel: ControlChannel;
  setup: SdkSetup;
  sessionId: string;
  cwd: string;
  transcriptPath: string;
  permissionMode(): string;
  /** Told of a call a PreToolUse hook denied (Claude Code lists it in the result's `permission_denials`). */
  onDenied?(block: ToolUseBlock, toolName: string): void;
  /** Told about a callback that failed (its answer was an error, or none came in time): the run goes on. */
  onFailure(event: HookEvent, error: unknown): void;
}

type HookOutput = Record<string, unknown> & { hookSpecificOutput?: Record<string, unknown> };

/** Calls the callbacks of `event` whose matcher matches `target`, in order; their answers (failures left out). */
async function callHooks(context: HookContext, event: HookEvent, target: string, fields: Record<string, unknown>, signal?: AbortSignal): Promise<HookOutput[]> {
  const matchers = (context.setup.hooks[event] ?? []).filter((m) => matcherMatches(m.matcher, target));
  const input = {
    session_id: context.sessionId,
    transcript_path: context.transcriptPath,
    cwd: context.cwd,
    permission_mode: context.permissionMode(),
    hook_event_name: event,
    ...fields,
  };
  const outputs: HookOutput[] = [];
  for (const matcher of matchers) {
    for (const id of matcher.callbackIds) {
      const timeout = AbortSignal.timeout((matcher.timeout ?? 60) * 1000);
      try {
        const tool = typeof fields.tool_use_id === 'string' ? { tool_use_id: fields.tool_use_id } : {};
        const answer = await context.channel.ask('hook_callback', { callback_id: id, input, ...tool }, signal ? AbortSignal.any([signal, timeout]) : timeout);
        outputs.push(answer as HookOutput);
      } catch (error) {
        context.onFailure(event, error);
      }
    }
  }
  return outputs;
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** What PreToolUse answers decided: deny (with the reason), allow (skip the permission check), and the input to use. */
function preDecision(outputs: HookOutput[], input: unknown): { deny?: string; allow: boolean; input: unknown } {
  let allow = false;
  for (const output of outputs) {
    const specific = output.hookSpecificOutput ?? {};
    const decision = specific.permissionDecision ?? (output.decision === 'block' ? 'deny' : output.decision === 'approve' ? 'allow' : undefined);
    if (decision === 'deny' || output.continue === false) {
      return { deny: text(specific.permissionDecisionReason) ?? text(output.reason) ?? text(output.stopReason) ?? 'Blocked by a PreToolUse hook', allow, input };
    }
    if (isObject(specific.updatedInput)) input = specific.updatedInput;
    if (decision === 'allow') allow = true;
  }
  return { allow, input };
}

/** The context PostToolUse and UserPromptSubmit answers add for the model. */
function addedContext(outputs: HookOutput[]): string[] {
  return outputs.flatMap((o) => [text(o.hookSpecificOutput?.additionalContext), o.decision === 'block' ? text(o.reason) : undefined]).filter((t): t is string => t !== undefined);
}

/** What a tool's output is to a PostToolUse hook: its structured result as Claude Code reports it (ToolOutput.data), else its text. */
const toolResponse = (output: ToolOutput) => (output.data !== undefined ? output.data : output.content);

/** The name hooks and the host see: the tool's public name (`Bash`), or the name the model wrote. */
const nameOf = (call: ToolCallInfo) => (call.tool ? publicToolName(call.tool) : call.block.name);

/**
 * Run hooks that call the host's PreToolUse and PostToolUse callbacks. The permission gate judges after them
 * (run/permissionHooks.ts): an `allow` skips its asking, not its deny and ask rules; a changed input is what it judges.
 */
export function controlHooks(context: HookContext): RunHooks {
  const denied = new Set<string>();
  return {
    async beforeToolCall(call) {
      const name = nameOf(call);
      const fields = { tool_name: name, tool_input: call.block.input, tool_use_id: call.block.id };
      const pre = preDecision(await callHooks(context, 'PreToolUse', name, fields, call.signal), call.block.input);
      if (pre.deny !== undefined) context.onDenied?.(call.block, name);
      let decision: ToolCallDecision | undefined = pre.deny !== undefined ? { action: 'deny', reason: pre.deny } : pre.allow ? { action: 'allow' } : undefined;
      if (decision?.action !== 'deny' && pre.input !== call.block.input) decision = { action: 'change', input: pre.input };
      if (decision?.action === 'deny') denied.add(call.block.id);
      return decision;
    },
    beforeCompact: (info) => preCompactHooks(context, info),
    async afterToolCall(call) {
      if (denied.delete(call.block.id)) return undefined;
      const name = nameOf(call);
      const fields = { tool_name: name, tool_input: call.block.input, tool_response: toolResponse(call.output), tool_use_id: call.block.id };
      const added = addedContext(await callHooks(context, 'PostToolUse', name, fields, call.signal));
      if (added.length === 0) return undefined;
      const blocks = call.output.blocks && [...call.output.blocks, ...added.map((text) => ({ type: 'text' as const, text }))];
      return { ...call.output, content: [call.output.content, ...added].join('\n\n'), ...(blocks ? { blocks } : {}) };
    },
  };
}

/** UserPromptSubmit: whether the prompt is blocked (the reason), and the context the hooks add to it. */
export async function promptHooks(context: HookContext, prompt: string): Promise<{ block?: string; context: string[] }> {
  const outputs = await callHooks(context, 'UserPromptSubmit', '', { prompt, source: 'sdk' });
  const blocked = outputs.find((o) => o.decision === 'block' || o.continue === false);
  if (blocked) return { block: text(blocked.reason) ?? text(blocked.stopReason) ?? 'Blocked by a UserPromptSubmit hook', context: [] };
  return { context: outputs.map((o) => text(o.hookSpecificOutput?.additionalContext)).filter((t): t is string => t !== undefined) };
}

/** What the PreCompact callbacks answered, as Claude Code 2.1.197 reads them, and its line for each (`display`). */
export interface PreCompactAnswer {
  instructions?: string;
  block?: string;
  display: string[];
}

/**
 * PreCompact: the host's callbacks are told the trigger (`manual`, `auto`: their matcher) and the user's instructions.
 * As Claude Code (recorded: test/cli/sdk/preCompact.process.test.ts): each answer's `systemMessage` is added to the
 * summary's instructions, `decision: "block"` blocks the compaction ("[callback]"), and each callback gets a line.
 */
export async function preCompactHooks(context: HookContext, info: { trigger: 'manual' | 'auto'; instructions: string | null }): Promise<PreCompactAnswer> {
  const outputs = await callHooks(context, 'PreCompact', info.trigger, { trigger: info.trigger, custom_instructions: info.instructions });
  const ran = outputs.filter((o) => o.decision !== 'block');
  const said = ran.map((o) => text(o.systemMessage)?.trim()).filter((t): t is string => t !== undefined && t !== '');
  const display = ran.map((o) => `PreCompact [callback] completed successfully${text(o.systemMessage)?.trim() ? `: ${String(o.systemMessage).trim()}` : ''}`);
  const blocked = outputs.length > ran.length ? { block: Array.from({ length: outputs.length - ran.length }, () => '[callback]').join('\n') } : {};
  return { ...(said.length ? { instructions: said.join('\n') } : {}), ...blocked, display };
}

/** Stop: the reason a hook gives to go on (`decision: "block"`), or undefined to stop. */
export async function stopHooks(context: HookContext, lastText: string, active: boolean): Promise<string | undefined> {
  const outputs = await callHooks(context, 'Stop', '', { stop_hook_active: active, last_assistant_message: lastText });
  const block = outputs.find((o) => o.decision === 'block' && o.continue !== false);
  return block ? text(block.reason) ?? 'Continue (a Stop hook asked for it).' : undefined;
}

/** The host's answer to a permission prompt. */
export type HostPermission = { allow: true; input?: Record<string, unknown> } | { allow: false; message: string; interrupt: boolean };

/** Asks the host whether a call may run (`can_use_tool`), saying why the mode would not run it. */
export async function askHost(channel: ControlChannel, block: ToolUseBlock, why: string, signal: AbortSignal, tool?: Tool, suggestions?: PermissionUpdate[]): Promise<HostPermission> {
  const asked = { tool_name: tool ? publicToolName(tool) : block.name, input: block.input, ...(suggestions ? { permission_suggestions: suggestions } : {}), tool_use_id: block.id, decision_reason: why };
  const answer = await channel.ask('can_use_tool', asked, signal);
  if (answer.behavior === 'allow') return { allow: true, ...(isObject(answer.updatedInput) ? { input: answer.updatedInput } : {}) };
  return { allow: false, message: text(answer.message) ?? 'The host denied this tool call.', interrupt: answer.interrupt === true };
}
