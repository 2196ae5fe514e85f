/**
 * The permission gate: Claude Code's modes and `allow` / `deny` / `ask` rules, and who is asked about a call that
 * neither a rule nor the mode decides. Built once (createPermissionGate) and immutable after: a change of mode, or a
 * rule allowed "for this session", is a new gate (withMode, withRules). runAgent takes one as `permissions`; the CLI,
 * the REPL, the Agent SDK's channel and the durable worker each build theirs with their asker (none: such a call is
 * denied, as `-p` denies it). How a call is judged: ./decide.ts. The root rule: ./root.ts.
 */
import { resolve } from 'node:path';
import type { ToolUseBlock } from '../core/messages.js';
import type { Tool } from '../core/tool.js';
import { decideCall } from './decide.js';
import type { PermissionMode } from './modes.js';
import { checkRootRule } from './root.js';
import { parseRule, PermissionError, type ParsedRule, type RuleEffect } from './ruleText.js';
import { specifierChecker } from './toolParts.js';

export { PermissionError } from './ruleText.js';

/** Claude Code's `permissions` settings (and the flags that give the same). */
export interface PermissionSettings {
  mode?: PermissionMode;
  allow?: string[];
  deny?: string[];
  ask?: string[];
  /** More directories the tools may edit in (acceptEdits), relative to `cwd`. */
  additionalDirectories?: string[];
}

/** A rule with where it came from (a settings file, a flag): what `/permissions` lists. */
export interface SourcedRule {
  rule: string;
  effect: RuleEffect;
  /** Claude Code's name of the source: `userSettings`, `projectSettings`, `localSettings`, `flagSettings`, `cliArg`, `session`. */
  source: string;
  /** The settings file it is written in. */
  path?: string;
}

/** The answer of whoever is asked: allow (with the input to run instead, and rules to allow from now on), or deny. */
export type PermissionAnswer =
  | { allow: true; input?: Record<string, unknown>; rules?: string[] }
  | { allow: false; message: string };

/** A call the gate asks about: `reason`, why the rules and the mode did not decide it; `suggestion`, the rule that would allow it. */
export interface PermissionQuestion {
  block: ToolUseBlock;
  tool: Tool | undefined;
  reason: string;
  suggestion?: string;
  signal: AbortSignal;
}

export type PermissionAsker = (call: PermissionQuestion) => Promise<PermissionAnswer>;

/** Who decided a call: a rule, the mode (or the read-only check), the one asked, or a hook that allowed it. */
export type DecidedBy = 'rule' | 'mode' | 'asker' | 'hook';

export type GateDecision =
  | {
      behavior: 'allow';
      decidedBy: DecidedBy;
      /** The input to run instead of the model's (the one asked changed it). */
      input?: Record<string, unknown>;
      /** The gate to judge the run's later calls with: the one asked allowed rules for the session. */
      gate?: PermissionGate;
    }
  | {
      behavior: 'deny';
      decidedBy: DecidedBy;
      message: string;
      /** The deny rule that matched. */
      rule: string | null;
      /** The rule that would allow the call, when nobody was asked. */
      suggestion?: string;
    };

/** One call to judge: `preApproved` when a hook allowed it (only deny and ask rules still apply). */
export interface GateCall {
  block: ToolUseBlock;
  tool: Tool | undefined;
  signal: AbortSignal;
  preApproved?: boolean;
}

export interface PermissionGate {
  readonly mode: PermissionMode;
  /** The working directory first, then the additional directories. */
  readonly dirs: readonly [string, ...string[]];
  /** Every rule in force, with where it came from. */
  readonly rules: readonly SourcedRule[];
  readonly asker: PermissionAsker | undefined;
  decide(call: GateCall): Promise<GateDecision>;
  /** The same gate in another mode; throws a PermissionError for bypassPermissions as root outside a sandbox. */
  withMode(mode: PermissionMode): PermissionGate;
  /** The same gate with more rules (`source`: default `session`). */
  withRules(change: { allow?: string[]; deny?: string[]; ask?: string[] }, source?: string): PermissionGate;
  /** The same gate asking someone else (undefined: nobody; what would be asked is denied). */
  withAsker(asker: PermissionAsker | undefined): PermissionGate;
}

export interface GateOptions extends PermissionSettings {
  /** The tools' working directory: relative directories start here; acceptEdits edits inside it. */
  cwd: string;
  asker?: PermissionAsker;
  /** Rules with their source (a settings file's), beside `allow`, `deny`, `ask` (whose source is `cliArg`). */
  sourced?: SourcedRule[];
  /** Tools whose rules' specifiers are checked now (a bad `Bash(x:*y)` throws here, not at the first call). */
  tools?: Tool[];
  /** For the root rule: the environment (IS_SANDBOX) and the user id; default the process's. */
  env?: NodeJS.ProcessEnv;
  uid?: number;
}

/** What a gate is made of (immutable). */
export interface GateState {
  mode: PermissionMode;
  dirs: readonly [string, ...string[]];
  rules: readonly ParsedRule[];
  asker: PermissionAsker | undefined;
  env: NodeJS.ProcessEnv | undefined;
  uid: number | undefined;
  tools: readonly Tool[];
}

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

/** Whether `rule` can be a rule (of the tools of `tools` it names, checked by them). */
export function isValidRule(rule: string, tools: readonly Tool[] = []): boolean {
  try {
    parseAll([{ rule, effect: 'allow', source: 'session' }], tools);
    return true;
  } catch {
    return false;
  }
}

/** Whether `value` is a gate (and not the settings to build one from). */
export function isPermissionGate(value: unknown): value is PermissionGate {
  return typeof value === 'object' && value !== null && typeof (value as PermissionGate).decide === 'function' && typeof (value as PermissionGate).withMode === 'function';
}
