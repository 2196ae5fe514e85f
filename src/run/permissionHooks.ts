/**
 * runAgent's `permissions`: the gate (permissions/gate.ts) judges each tool call after the run's own
 * `beforeToolCall` hook, as Claude Code judges a call after its PreToolUse hooks. A hook's deny stands; its changed
 * input is what the gate judges; its explicit allow skips the asking, not the deny and ask rules. A call the gate
 * denies never runs: the model gets `Not run: <reason>` and every listener a `permission_denied` event. Rules the one
 * asked allowed for the session hold for the rest of the run.
 *
 * The run holds its gate in a reference (`GateRef`): each call is judged by the gate in it when the call is decided,
 * so whoever holds the reference may swap in another gate mid-run (the Agent SDK channel's set_permission_mode puts
 * `gate.withMode(mode)` there: a call decided after the change, in the turn under way too, is judged in the new mode).
 * Each gate stays immutable.
 */
import type { GateEvent } from '../core/events.js';
import type { RunHooks, ToolCallDecision } from '../core/hooks.js';
import type { ToolUseBlock } from '../core/messages.js';
import { toolCallLine, type DenyRule, type Tool } from '../core/tool.js';
import { createPermissionGate, isPermissionGate, type GateOptions, type PermissionGate } from '../permissions/gate.js';
import { partsOf } from '../permissions/toolParts.js';

/** The gate a run judges its calls by, swapped by whoever holds the reference (a new gate: gates are immutable). */
export interface GateRef {
  current: PermissionGate;
}

/** A gate, a reference to one that may be swapped mid-run, or the settings to build one with (its `cwd` is the run's). */
export type PermissionsOption = PermissionGate | GateRef | Omit<GateOptions, 'cwd'>;

export function isGateRef(value: unknown): value is GateRef {
  return typeof value === 'object' && value !== null && isPermissionGate((value as Partial<GateRef>).current);
}

/** The gate in force now: the gate given, or the one its reference holds now. */
export const currentGate = (permissions: PermissionGate | GateRef): PermissionGate => (isGateRef(permissions) ? permissions.current : permissions);

/**
 * The reference to the run's gate: the one given, else a new one to the gate given or built for `cwd` from settings
 * (its rules' specifiers checked by the run's `tools`); throws a PermissionError for bad settings.
 */
export function gateOf(permissions: PermissionsOption, cwd: string, tools: Tool[]): GateRef {
  if (isGateRef(permissions)) return permissions;
  return { current: isPermissionGate(permissions) ? permissions : createPermissionGate({ tools, ...permissions, cwd }) };
}

/**
 * After the one asked allowed rules for the session: the gate that decided, with them (`allowed`), into the reference,
 * in the mode the reference's gate has now (a mode set while the question was open is kept).
 */
function keepAllowed(ref: GateRef, decided: PermissionGate, allowed: PermissionGate): void {
  if (ref.current === decided) {
    ref.current = allowed;
    return;
  }
  try {
    ref.current = allowed.withMode(ref.current.mode);
  } catch {
    // the mode cannot be had by this gate (the root rule): the reference's gate stays, without the session's rules
  }
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
export function gatedHooks(hooks: RunHooks | undefined, ref: GateRef, emit: ((event: GateEvent) => void) | undefined): RunHooks {
  return {
    ...hooks,
    async beforeToolCall(call) {
      const hooked: ToolCallDecision | void = await hooks?.beforeToolCall?.(call);
      if (hooked?.action === 'deny') return hooked;
      const input = hooked?.action === 'change' ? hooked.input : call.block.input;
      const block = (input === call.block.input ? call.block : { ...call.block, input }) as ToolUseBlock;
      const gate = ref.current;
      const decision = await gate.decide({ block, tool: call.tool, signal: call.signal, preApproved: hooked?.action === 'allow' });
      if (decision.behavior === 'deny') {
        const toolName = partsOf(call.tool, call.block.name).publicName;
        const suggestion = decision.suggestion === undefined ? {} : { suggestion: decision.suggestion };
        emit?.({ type: 'permission_denied', block: call.block, toolName, reason: decision.message, rule: decision.rule, decidedBy: decision.decidedBy, ...suggestion, call: toolCallLine(call.tool, call.block.name, call.block.input) });
        return { action: 'deny', reason: decision.message };
      }
      if (decision.gate) keepAllowed(ref, gate, decision.gate);
      const ran = decision.input ?? input;
      return ran === call.block.input ? hooked ?? undefined : { action: 'change', input: ran };
    },
  };
}
