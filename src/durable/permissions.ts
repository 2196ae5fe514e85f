/**
 * A durable run under rules: the run's permission mode and rules (`submit --permission-mode`, `--allowedTools`,
 * `--disallowedTools`) within the worker's floor (`worker --disallowedTools`, and `--permission-mode` as the most
 * permissive mode any run it serves gets). Each call's decision is a journalled step: a replay reads it and never
 * decides differently (a worker with other rules included); a call the mode would ask about waits for an answer on a
 * Restate awakeable (approvals.ts), which Restate journals too: a replay never asks again. Calls are judged by the
 * library's gate (permissions/gate.ts), in Claude Code's order.
 */
import { toolCallLine } from '../core/tool.js';
import type { PermissionMode } from '../permissions/modes.js';
import { checkRules, createPermissionGate, type DecidedBy, type GateCall, type GateDecision, type PermissionGate } from '../permissions/gate.js';
import { refusesBypassMode } from '../permissions/root.js';
import { allBuiltInTools } from '../run/defaultTools.js';
import type { AskAnswer, DurableAsk } from './approvals.js';
import type { Journal } from './steps.js';
import type { RunRequest } from './protocol.js';

/** What a worker holds every run it serves to. */
export interface WorkerPermissions {
  /** Deny rules no run can lift. */
  deny?: string[];
  /** The mode of a run that names none, and the most permissive a run gets (a run asking for more gets this one).
   *  Without it a run's mode is its own, `default` when it names none (Claude Code's, the CLI's). */
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
 * The run's rules within the worker's floor: its mode is the run's (`permissionMode`), else the worker's, else
 * `default` (a call neither read-only nor allowed by a rule waits for an approval), at most the worker's. Undefined
 * when every call runs: bypassPermissions, asked for by a flag, and no deny rule (no step is journalled for it).
 * Throws an Error (one line) for a rule that does not parse, and for bypassPermissions as root outside a sandbox
 * (permissions/root.ts: the gate's root rule, judged by the worker's user and environment; no durable path around it).
 */
export function runPermissions(request: RunRequest, worker: WorkerPermissions = {}, env: NodeJS.ProcessEnv = process.env, uid = process.getuid?.()): RunPermissions | undefined {
  const asked = request.permissionMode ?? worker.mode ?? 'default';
  const mode = worker.mode ? lesser(asked, worker.mode) : asked;
  if (refusesBypassMode(mode, env, uid)) {
    throw new Error(`permission mode bypassPermissions cannot be used with root/sudo privileges for security reasons (this worker runs as root without IS_SANDBOX=1)`);
  }
  const deny = [...(worker.deny ?? []), ...(request.disallowedTools ?? [])];
  const allow = request.allowedTools ?? [];
  checkRules([...deny, ...allow], allBuiltInTools());
  if (mode === 'bypassPermissions' && deny.length === 0) return undefined;
  return { mode, allow, deny, ...(request.approvalTimeoutMs !== undefined ? { timeoutMs: request.approvalTimeoutMs } : {}) };
}

/** A call's decision as journalled: allowed, denied (with the reason the model gets), or to be asked about. */
type Judged =
  | { allowed: true; decidedBy: DecidedBy }
  | { allowed: false; ask: false; decidedBy: DecidedBy; rule: string | null; message: string }
  | { allowed: false; ask: true; message: string; at: number };

/**
 * The gate's decision (permissions/gate.ts), with an asker that only notes the question: what the gate would ask
 * about is asked durably outside this step (the question is journalled with it, the answer by Restate).
 */
async function judge(call: GateCall, permissions: RunPermissions, cwd: string): Promise<Judged> {
  const { tool } = call;
  let question: string | undefined;
  try {
    const gate = createPermissionGate({
      cwd,
      mode: permissions.mode,
      allow: permissions.allow,
      deny: permissions.deny,
      ...(tool ? { tools: [tool] } : {}),
      // The root rule held when the run's mode was set (runPermissions): bypassPermissions here is the worker's own.
      env: { ...process.env, IS_SANDBOX: '1' },
      asker: async ({ reason }) => {
        question = reason;
        return { allow: false, message: reason };
      },
    });
    const decision = await gate.decide(call);
    if (question !== undefined) return { allowed: false, ask: true, message: question, at: Date.now() };
    if (decision.behavior === 'allow') return { allowed: true, decidedBy: decision.decidedBy };
    return { allowed: false, ask: false, decidedBy: decision.decidedBy, rule: decision.rule, message: decision.message };
  } catch (error) {
    const message = `the permission check failed (${error instanceof Error ? error.message : String(error)}): not run`;
    return { allowed: false, ask: false, decidedBy: 'mode', rule: null, message };
  }
}

/** Who answers a call asked about (approvals.ts `askDurably`, with the run's context). */
export type DurableAsker = (question: DurableAsk) => Promise<AskAnswer>;

/**
 * The run's gate, for runAgent's `permissions` (which tells every listener of a denial: the transcript, the result's
 * permission_denials): each decision is the journalled step `permission <tool_use id>`, and a call to be asked about
 * waits for `ask`. It does not change during the run (withMode and the like refuse).
 */
export function durableGate(journal: Journal, permissions: RunPermissions, cwd: string, ask: DurableAsker): PermissionGate {
  // A call decided ahead (an Agent call whose child starts with an earlier one's: children.ts) is decided once.
  const decided = new Map<string, Promise<GateDecision>>();
  const decide = (call: GateCall): Promise<GateDecision> => {
    const known = decided.get(call.block.id);
    if (known) return known;
    const decision = decideOnce(call);
    decided.set(call.block.id, decision);
    return decision;
  };
  const decideOnce = async (call: GateCall): Promise<GateDecision> => {
    const { block, tool } = call;
    const judged = await journal.run(`permission ${block.id}`, () => judge({ block, tool, signal: call.signal, ...(call.preApproved ? { preApproved: true } : {}) }, permissions, cwd));
    if (judged.allowed) return { behavior: 'allow', decidedBy: judged.decidedBy };
    if (!judged.ask) return { behavior: 'deny', decidedBy: judged.decidedBy, rule: judged.rule, message: judged.message };
    const answer = await ask({ block, call: toolCallLine(tool, block.name, block.input), reason: judged.message, at: judged.at });
    return answer.allow ? { behavior: 'allow', decidedBy: 'asker' } : { behavior: 'deny', decidedBy: 'asker', rule: null, message: answer.message };
  };
  const unchanged = (): never => {
    throw new Error("a durable run's permissions do not change while it runs");
  };
  return Object.freeze({
    mode: permissions.mode,
    dirs: [cwd] as const,
    rules: [],
    asker: undefined,
    decide,
    withMode: unchanged,
    withRules: unchanged,
    withAsker: unchanged,
  });
}
