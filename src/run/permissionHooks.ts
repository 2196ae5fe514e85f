/**
 * runAgent's `permissions`: the gate (permissions/gate.ts) judges each tool call after the run's own
 * `beforeToolCall` hook, as Claude Code judges a call after its PreToolUse hooks. A hook's deny stands; its changed
 * input is what the gate judges; its explicit allow skips the asking, not the deny and ask rules. A call the gate
 * denies never runs: the model gets `Not run: <reason>` and every listener a `permission_denied` event. Rules the one
 * asked allowed for the session hold for the rest of the run.
 */
import type { GateEvent } from '../core/events.js';
import type { RunHooks, ToolCallDecision } from '../core/hooks.js';
import type { ToolUseBlock } from '../core/messages.js';
import type { DenyRule, Tool } from '../core/tool.js';
import { createPermissionGate, isPermissionGate, type GateOptions, type PermissionGate } from '../permissions/gate.js';
import { partsOf } from '../permissions/toolParts.js';

/** A gate, or the settings to build one with (its `cwd` is the run's). */
export type PermissionsOption = PermissionGate | Omit<GateOptions, 'cwd'>;

/**
 * The gate of `permissions` (built for `cwd` when settings are given, its rules' specifiers checked by the run's
 * `tools`); throws a PermissionError for bad settings.
 */
export function gateOf(permissions: PermissionsOption, cwd: string, tools: Tool[]): PermissionGate {
  return isPermissionGate(permissions) ? permissions : createPermissionGate({ tools, ...permissions, cwd });
}

/** The gate's deny rules with a specifier, for the tools (`ToolContext.denyRules`: Glob and Grep leave out what they cover). */
export function denyRulesOf(gate: PermissionGate): DenyRule[] {
  return gate.rules.flatMap(({ rule, effect }) => {
    if (effect !== 'deny') return [];
    const parsed = /^([A-Za-z_][\w.-]*)\((.*)\)$/s.exec(rule.trim());
    return parsed && parsed[2]?.trim() && parsed[2].trim() !== '*' ? [{ tool: parsed[1] as string, specifier: parsed[2].trim() }] : [];
  });
}

/** `hooks` with the gate's judgement after their beforeToolCall; `emit` hears each denial. */
export function gatedHooks(hooks: RunHooks | undefined, first: PermissionGate, emit: ((event: GateEvent) => void) | undefined): RunHooks {
  let gate = first;
  return {
    ...hooks,
    async beforeToolCall(call) {
      const hooked: ToolCallDecision | void = await hooks?.beforeToolCall?.(call);
      if (hooked?.action === 'deny') return hooked;
      const input = hooked?.action === 'change' ? hooked.input : call.block.input;
      const block = (input === call.block.input ? call.block : { ...call.block, input }) as ToolUseBlock;
      const decision = await gate.decide({ block, tool: call.tool, signal: call.signal, preApproved: hooked?.action === 'allow' });
      if (decision.behavior === 'deny') {
        const toolName = partsOf(call.tool, call.block.name).publicName;
        const suggestion = decision.suggestion === undefined ? {} : { suggestion: decision.suggestion };
        emit?.({ type: 'permission_denied', block: call.block, toolName, reason: decision.message, rule: decision.rule, decidedBy: decision.decidedBy, ...suggestion });
        return { action: 'deny', reason: decision.message };
      }
      if (decision.gate) gate = decision.gate;
      const ran = decision.input ?? input;
      return ran === call.block.input ? hooked ?? undefined : { action: 'change', input: ran };
    },
  };
}
