/**
 * `--allowedTools` / `--disallowedTools` and `--permission-mode` as runAgent hooks: each tool call is judged by the
 * rules in the mode (src/permissions/rules.ts) before it runs; a denied call never runs, the model gets an `is_error` result
 * naming the rule ("Not run: denied by rule Bash(rm:*)"), and the call is kept for the result's
 * `permission_denials`.
 */
import { resolve } from 'node:path';
import type { RunHooks } from '../core/hooks.js';
import type { ToolUseBlock } from '../core/messages.js';
import type { PermissionMode } from '../permissions/modes.js';
import { suggestRule } from '../permissions/suggest.js';
import type { PermissionDenial } from './output.js';
import { shown } from './terminal.js';

type PermissionOptions = {
  allowedTools?: string[];
  disallowedTools?: string[];
  permissionMode?: PermissionMode;
  permissionPromptTool?: string;
  addDir?: string[];
};

/**
 * The mode a run's calls are judged in: the one given (`--permission-mode`, `--dangerously-skip-permissions`), else
 * `default`, Claude Code's: what the deny rules leave and the allow rules or the read-only check allow runs; the rest
 * is asked (the REPL's terminal, an Agent SDK program's canUseTool) or, with nobody to ask (`-p`), denied and listed
 * in `permission_denials` (docs/cli.md#permissions---allowedtools---disallowedtools---permission-mode).
 */
export function permissionModeOf(options: PermissionOptions): PermissionMode {
  return options.permissionMode ?? 'default';
}

/** Claude Code's words (and exit code 1) when root asks for bypassPermissions outside a sandbox. */
export const ROOT_BYPASS_REFUSAL = '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons';

/**
 * Whether the flags ask for every call to run (`--dangerously-skip-permissions`, `--permission-mode
 * bypassPermissions`, `--allow-dangerously-skip-permissions`) as root outside a sandbox: Claude Code refuses them
 * then, unless `IS_SANDBOX=1` (or `CLAUDE_CODE_BUBBLEWRAP`) says the machine is one.
 */
export function refusesBypass(
  options: { permissionMode?: PermissionMode; allowDangerouslySkipPermissions?: boolean },
  env: NodeJS.ProcessEnv,
  uid: number | undefined = process.getuid?.(),
): boolean {
  const asked = options.permissionMode === 'bypassPermissions' || options.allowDangerouslySkipPermissions === true;
  return asked && uid === 0 && env.IS_SANDBOX !== '1' && !/^(1|true|yes|on)$/i.test(env.CLAUDE_CODE_BUBBLEWRAP ?? '');
}

/** Asks someone whether a call the mode would not run may run (`why`: what the mode says); the host's can_use_tool. */
export type PermissionAsker = (
  block: ToolUseBlock,
  why: string,
  signal: AbortSignal,
) => Promise<{ allow: true; input?: Record<string, unknown> } | { allow: false; message: string }>;

export interface PermissionGate {
  hooks: RunHooks;
  /** The calls denied so far, in order. */
  denials: PermissionDenial[];
  /** The mode calls are judged in from now on (a control request may change it). */
  mode: PermissionMode;
  /** Asked about a call no deny rule matches but the mode would not run; without it such a call is denied. */
  ask?: PermissionAsker;
  /** Told of each denied call, with the reason the model gets (a text run says it on stderr). */
  onDeny?: (block: ToolUseBlock, reason: string) => void;
  /** Whether `rule` parses as an allow rule. */
  canAllow(rule: string): boolean;
  /** Allows `rule` from now on (the REPL's "yes, and allow ... for this session"). */
  allowForSession(rule: string): void;
}

/** A rule that does not parse: printed as a usage error. */
export class RuleError extends Error {
  override readonly name = 'RuleError';
}

/**
 * The gate for the rules and the permission mode of the command line (`cwd`: the tools' working directory), or
 * `undefined` when every call runs. The rules module and the bash parser it splits commands with load only here.
 */
export async function permissionGate(options: PermissionOptions, cwd: string, always = false): Promise<PermissionGate | undefined> {
  const mode = permissionModeOf(options);
  if (!always && mode === 'bypassPermissions' && !options.disallowedTools?.length) return undefined;
  const { decideInModeSoon, parseRules, preparePermissions } = await import('../permissions/rules.js');
  const parse = (flag: string, texts: string[] | undefined) => {
    try {
      return parseRules(texts ?? []);
    } catch (error) {
      throw new RuleError(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const rules = { allow: parse('--allowedTools', options.allowedTools), deny: parse('--disallowedTools', options.disallowedTools) };
  // The parser the rules split commands with loads beside the first request, not before it. A call of another tool or a
  // command of plain words is judged at once (the same rules, read without the parser: tools/bash/judge/shell/reader.ts);
  // any other command waits for the parser (a parser that cannot load makes the hook throw, which denies the call).
  preparePermissions().catch(() => undefined);
  const denials: PermissionDenial[] = [];
  const dirs: [string, ...string[]] = [cwd, ...(options.addDir ?? []).map((dir) => resolve(cwd, dir))]; // where acceptEdits' file commands run
  const gate: PermissionGate = {
    denials,
    mode,
    canAllow: (rule) => {
      try {
        return parseRules([rule]).length === 1;
      } catch {
        return false;
      }
    },
    allowForSession: (rule) => void rules.allow.push(...parseRules([rule])),
    hooks: {
      beforeToolCall: async ({ block, signal }) => {
        const decision = await decideInModeSoon(block.name, block.input, rules, gate.mode, dirs);
        if (decision.allowed) return undefined;
        const answer = decision.rule === null && gate.ask ? await gate.ask(block, decision.message, signal) : { allow: false as const, message: decision.message };
        if (answer.allow) return answer.input ? { action: 'change', input: answer.input } : undefined;
        denials.push({ tool_name: block.name, tool_use_id: block.id, tool_input: block.input });
        gate.onDeny?.(block, answer.message);
        return { action: 'deny', reason: answer.message };
      },
    },
  };
  return gate;
}

/**
 * The line for a call the permissions denied where nobody is asked (a text `-p` run, the REPL on piped input; json
 * and stream-json list it in `permission_denials`): what, why, and the rule that would let it run, on stderr, e.g.
 * `agentloop: not run: Bash "touch new.txt": not allowed in permission mode default: ... (to allow: --allowedTools "Bash(touch:*)")`.
 */
export function sayDenied(block: ToolUseBlock, reason: string): void {
  const input = block.input as { command?: unknown };
  const what = block.name === 'bash' && typeof input.command === 'string' ? `Bash ${JSON.stringify(input.command)}` : block.name;
  const allow = reason.startsWith('denied by rule') ? '' : ` (to allow: --allowedTools ${JSON.stringify(suggestRule(block.name, block.input))})`;
  process.stderr.write(`${shown(`agentloop: not run: ${what}: ${reason}${allow}`)}\n`);
}
