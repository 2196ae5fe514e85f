/**
 * The permission gate: Claude Code's modes and `allow` / `deny` / `ask` rules, and who is asked about a call that
 * neither a rule nor the mode decides. Built once (createPermissionGate) and immutable after: a change of mode, or a
 * rule allowed "for this session", is a new gate (withMode, withRules). runAgent takes one as `permissions`; the CLI,
 * the REPL, the Agent SDK's channel and the durable worker each build theirs with their asker (none: such a call is
 * denied, as `-p` denies it). How a call is judged: ./decide.ts. The root rule: ./root.ts.
 */
import { resolve } from 'node:path';
import type { Tool } from '../core/tool.js';
import { decideCall } from './decide.js';
import type { PermissionMode } from './modes.js';
import { checkRootRule } from './root.js';
import { parseRule, PermissionError, type ParsedRule } from './ruleText.js';
import { specifierChecker } from './toolParts.js';

export { PermissionError } from './ruleText.js';

export type { PermissionSettings, SourcedRule, PermissionAnswer, PermissionQuestion, PermissionAsker, DecidedBy, GateDecision, GateCall, PermissionGate, GateOptions, GateState } from './gateTypes.js';
import type { SourcedRule, PermissionAsker, GateCall, PermissionGate, GateOptions, GateState } from './gateTypes.js';

/** Builds a gate; throws a PermissionError (one line) for a bad rule, or for bypassPermissions as root outside a sandbox. */
export function createPermissionGate(options: GateOptions): PermissionGate {
  const mode = options.mode ?? 'default';
  checkRootRule(mode, options.env, options.uid);
  const tools = options.tools ?? [];
  const sourced: SourcedRule[] = [
    ...(options.sourced ?? []),
    ...(['allow', 'deny', 'ask'] as const).flatMap((effect) => (options[effect] ?? []).map((rule) => ({ rule, effect, source: 'cliArg' }))),
  ];
  const cwd = resolve(options.cwd);
  const dirs: [string, ...string[]] = [cwd, ...(options.additionalDirectories ?? []).map((dir) => resolve(cwd, dir))];
  return gateOf({ mode, dirs, rules: parseAll(sourced, tools), asker: options.asker, env: options.env, uid: options.uid, tools });
}

function parseAll(rules: readonly SourcedRule[], tools: readonly Tool[]): ParsedRule[] {
  return rules.map(({ rule, effect, source, path }) => {
    const parsed = { ...parseRule(rule, effect, source), ...(path !== undefined ? { path } : {}) };
    const check = parsed.specifier === null ? undefined : specifierChecker(parsed.tool, tools);
    try {
      if (parsed.specifier !== null) check?.(parsed.specifier);
    } catch (error) {
      const why = error instanceof Error ? error.message.replace(/^invalid permission rule "[^"]*": /, '') : String(error);
      throw new PermissionError(`invalid permission rule ${JSON.stringify(rule)}: ${why}`);
    }
    return parsed;
  });
}

function gateOf(state: GateState): PermissionGate {
  return Object.freeze({
    mode: state.mode,
    dirs: state.dirs,
    rules: Object.freeze(state.rules.map(({ text, effect, source, path }) => ({ rule: text, effect, source, ...(path !== undefined ? { path } : {}) }))),
    asker: state.asker,
    decide: (call: GateCall) => decideCall(state, call, (change) => gateOf({ ...state, rules: [...state.rules, ...parseAll(change, state.tools)] })),
    withMode(mode: PermissionMode) {
      checkRootRule(mode, state.env, state.uid);
      return gateOf({ ...state, mode });
    },
    withRules(change: { allow?: string[]; deny?: string[]; ask?: string[] }, source = 'session') {
      const added = (['allow', 'deny', 'ask'] as const).flatMap((effect) => (change[effect] ?? []).map((rule) => ({ rule, effect, source })));
      return gateOf({ ...state, rules: [...state.rules, ...parseAll(added, state.tools)] });
    },
    withAsker: (asker: PermissionAsker | undefined) => gateOf({ ...state, asker }),
  });
}

/**
 * Checks rules as a gate would take them: throws a PermissionError (one line) naming the first that is not a rule, or
 * whose specifier a tool of `tools` it names refuses (`Bash(git:* log)`).
 */
export function checkRules(rules: readonly string[], tools: readonly Tool[] = []): void {
  parseAll(rules.map((rule) => ({ rule, effect: 'allow' as const, source: 'session' })), tools);
}

/** Whether `rule` can be a rule (of the tools of `tools` it names, checked by them). */
export function isValidRule(rule: string, tools: readonly Tool[] = []): boolean {
  try {
    checkRules([rule], tools);
    return true;
  } catch {
    return false;
  }
}

/** Whether `value` is a gate (and not the settings to build one from). */
export function isPermissionGate(value: unknown): value is PermissionGate {
  return typeof value === 'object' && value !== null && typeof (value as PermissionGate).decide === 'function' && typeof (value as PermissionGate).withMode === 'function';
}
