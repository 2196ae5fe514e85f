/**
 * The permission gate's types (./gate.ts builds the gate, ./decide.ts judges a call with it): in a file of their own,
 * which both import, so that neither imports the other.
 */
import type { ToolUseBlock } from '../core/messages.js';
import type { PermissionUpdate, Tool } from '../core/tool.js';
import type { PermissionMode } from './modes.js';
import type { ParsedRule, RuleEffect } from './ruleText.js';

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

/**
 * A call the gate asks about: `reason`, why the rules and the mode did not decide it; `suggestion`, the rule that would
 * allow it; `updates`, what Claude Code would offer (its `permission_suggestions`: a rule, the mode, folders).
 */
export interface PermissionQuestion {
  block: ToolUseBlock;
  tool: Tool | undefined;
  reason: string;
  suggestion?: string;
  updates?: PermissionUpdate[];
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
  env?: Readonly<Record<string, string | undefined>>;
  uid?: number;
}

/** What a gate is made of (immutable). */
export interface GateState {
  mode: PermissionMode;
  dirs: readonly [string, ...string[]];
  rules: readonly ParsedRule[];
  asker: PermissionAsker | undefined;
  env: Readonly<Record<string, string | undefined>> | undefined;
  uid: number | undefined;
  tools: readonly Tool[];
}
