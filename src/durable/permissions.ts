/**
 * A durable run under rules: the run's permission mode and rules (`submit --permission-mode`, `--allowedTools`,
 * `--disallowedTools`) within the worker's floor (`worker --disallowedTools`, and `--permission-mode` as the most
 * permissive mode any run it serves gets). Each call's decision is a journalled step: a replay reads it and never
 * decides differently (a worker with other rules included); a call the mode would ask about waits for an answer on a
 * Restate awakeable (approvals.ts), which Restate journals too: a replay never asks again.
 */
import type { RunHooks } from '../core/hooks.js';
import type { ToolUseBlock } from '../core/messages.js';
import { toolCallLine, type Tool } from '../core/tool.js';
import type { PermissionMode } from '../permissions/modes.js';
import { decideInModeSoon, parseRules } from '../permissions/rules.js';
import type { AskAnswer, DurableAsk } from './approvals.js';
import type { Journal } from './steps.js';
import type { RunRequest } from './protocol.js';

/** What a worker holds every run it serves to. */
export interface WorkerPermissions {
  /** Deny rules no run can lift. */
  deny?: string[];
  /** The most permissive mode a run gets (a run asking for more gets this one); default bypassPermissions. */
  mode?: PermissionMode;
}

/** The rules a run's calls are judged by. */
export interface RunPermissions {
  mode: PermissionMode;
  allow: string[];
  deny: string[];
  /** How long a call asked about waits before it is denied. */
  timeoutMs?: number;
}

/** From the least permissive to the most. */
const ORDER: readonly PermissionMode[] = ['plan', 'dontAsk', 'default', 'acceptEdits', 'bypassPermissions'];

const lesser = (a: PermissionMode, b: PermissionMode) => (ORDER.indexOf(a) <= ORDER.indexOf(b) ? a : b);

/**
 * The run's rules within the worker's floor; undefined when every call runs (bypassPermissions and no deny rule, what
 * a durable run was before rules: no step is journalled for it). Throws an Error (one line) for a rule that does not parse.
 */
export function runPermissions(request: RunRequest, worker: WorkerPermissions = {}, env: NodeJS.ProcessEnv = process.env): RunPermissions | undefined {
  // Claude Code's root rule: bypassPermissions asked for as root only in a sandbox (IS_SANDBOX=1).
  if (request.permissionMode === 'bypassPermissions' && process.getuid?.() === 0 && env.IS_SANDBOX !== '1') {
    throw new Error('permission mode bypassPermissions cannot be used with root/sudo privileges for security reasons (this worker runs as root without IS_SANDBOX=1)');
  }
  const most = worker.mode ?? 'bypassPermissions';
  const mode = lesser(request.permissionMode ?? most, most);
  const deny = [...(worker.deny ?? []), ...(request.disallowedTools ?? [])];
  const allow = request.allowedTools ?? [];
  parseRules([...deny, ...allow]);
  if (mode === 'bypassPermissions' && deny.length === 0) return undefined;
  return { mode, allow, deny, ...(request.approvalTimeoutMs !== undefined ? { timeoutMs: request.approvalTimeoutMs } : {}) };
}

/** A call's decision as journalled: allowed, denied (with the reason the model gets), or to be asked about. */
type Judged = { allowed: true } | { allowed: false; ask: boolean; message: string; at: number };

async function judge(block: ToolUseBlock, permissions: RunPermissions, cwd: string): Promise<Judged> {
  const rules = { allow: parseRules(permissions.allow), deny: parseRules(permissions.deny) };
  try {
    const decision = await decideInModeSoon(block.name, block.input, rules, permissions.mode, cwd);
    if (decision.allowed) return { allowed: true };
    // Neither a deny rule nor a mode that never asks (plan, dontAsk): someone is asked.
    const ask = decision.rule === null && (permissions.mode === 'default' || permissions.mode === 'acceptEdits');
    return { allowed: false, ask, message: decision.message, at: Date.now() };
  } catch (error) {
    return { allowed: false, ask: false, message: `not judged: ${error instanceof Error ? error.message : String(error)}`, at: Date.now() };
  }
}

/** Who answers a call asked about (approvals.ts `askDurably`, with the run's context). */
export type DurableAsker = (question: DurableAsk) => Promise<AskAnswer>;

/**
 * The run's `beforeToolCall`: the decision is the journalled step `permission <tool_use id>`, and a call to be asked
 * about waits for `ask`. A denied call never runs: the model gets `Not run: <reason>`.
 */
export function permissionHook(journal: Journal, permissions: RunPermissions, cwd: string, ask: DurableAsker): NonNullable<RunHooks['beforeToolCall']> {
  return async ({ block, tool }) => {
    const judged = await journal.run(`permission ${block.id}`, () => judge(block, permissions, cwd));
    if (judged.allowed) return undefined;
    if (!judged.ask) return { action: 'deny', reason: judged.message };
    const answer = await ask({ block, call: callLine(tool, block), reason: judged.message, at: judged.at });
    return answer.allow ? undefined : { action: 'deny', reason: answer.message };
  };
}

/** `$ touch x` for bash (its display), the tool's name and its input for another. */
function callLine(tool: Tool | undefined, block: ToolUseBlock): string {
  return toolCallLine(tool, block.name, block.input);
}
