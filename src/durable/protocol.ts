/**
 * What goes over Restate's ingress between `agentloop submit` / `result` and the workers: the run
 * request, the result (a `RunResult` as JSON) and a session's status. No SDK here: the client side
 * loads none.
 */
import type { AgentOutput } from '../machine/context.js';
import { PERMISSION_MODES, type PermissionMode } from '../permissions/modes.js';
import type { FinalState, RunResult } from '../run/runAgent.js';
import { agentDefinitions } from '../tools/agent/definitions.js';

/** The virtual object a worker serves: `AgentSession/<session id>/<handler>`. */
export const SERVICE_NAME = 'AgentSession';

/** The virtual object a run's subagent is (durable/children.ts): `AgentChild/<session id>/<agent id>`. */
export const CHILD_SERVICE = 'AgentChild';

/** The state key of the count of record batches, and of each batch (records.ts writes them). */
export const BATCHES = 'batches';
export const batchKey = (index: number) => `batch:${index}`;

/** The body of `AgentSession/<id>/run`. */
export interface RunRequest {
  prompt: string;
  /** Default: the worker's MODEL_ID. */
  model?: string;
  maxTurns?: number;
  maxTokens?: number;
  maxRetries?: number;
  appendSystemPrompt?: string;
  /** The run's permission mode (default: the worker's; without one, `default`), at most the worker's. */
  permissionMode?: PermissionMode;
  /** Rules of the run (`Bash(npm test:*)`); the worker's deny rules hold beside them. */
  allowedTools?: string[];
  disallowedTools?: string[];
  /** A call asked about is denied when nobody answered it within this many ms (default: it waits as long as it takes). */
  approvalTimeoutMs?: number;
  /** Subagents of the run, as `--agents JSON` gives them (`{"NAME": {"description", "prompt", "tools", "model"}}`): the model gets the Agent tool. */
  agents?: Record<string, unknown>;
}

/** The state key of the session's calls waiting for an answer (approvals.ts writes it). */
export const APPROVALS = 'approvals';

/** A call of a durable run waiting for someone to allow or deny it. */
export interface WaitingCall {
  toolUseId: string;
  /** The tool's name, as the model called it. */
  tool: string;
  /** One line for the approver: `$ touch x`. */
  call: string;
  /** Why it is asked (the mode and rules did not decide it). */
  reason: string;
  /** When the question was put (the run's journalled time), ISO 8601. */
  since: string;
  /** The Restate awakeable the run waits on. */
  awakeableId: string;
  /** When the run's --approval-timeout denies it, ISO 8601. */
  deadline?: string;
}

/** What resolves a waiting call's awakeable. */
export type ApprovalAnswer = { allow: true } | { allow: false; message: string };

/** A `RunResult` as JSON: the context's set of tool_use ids is an array. */
export interface DurableRunResult {
  sessionId: string;
  state: FinalState;
  text: string;
  durationMs: number;
  context: Omit<AgentOutput, 'toolUseIds'> & { toolUseIds: string[] };
}

/** `AgentSession/<id>/status`: `none` for a session that has no run (or none finished yet). */
export type RunStatus = { status: 'none' | 'running' } | { status: 'done'; result: DurableRunResult };

const COUNTS = ['maxTurns', 'maxTokens', 'maxRetries', 'approvalTimeoutMs'] as const;

/** Why a request cannot run, or `undefined`. */
export function requestProblem(request: unknown): string | undefined {
  if (typeof request !== 'object' || request === null) return 'the request must be a JSON object with a "prompt"';
  const r = request as Record<string, unknown>;
  if (typeof r.prompt !== 'string' || r.prompt.trim() === '') return '"prompt" must be a non-empty string';
  for (const key of ['model', 'appendSystemPrompt'] as const) {
    if (r[key] !== undefined && typeof r[key] !== 'string') return `"${key}" must be a string`;
  }
  if (r.permissionMode !== undefined && !(PERMISSION_MODES as readonly unknown[]).includes(r.permissionMode)) {
    return `"permissionMode" must be one of ${PERMISSION_MODES.join(', ')}`;
  }
  for (const key of ['allowedTools', 'disallowedTools'] as const) {
    const value = r[key];
    if (value !== undefined && !(Array.isArray(value) && value.every((rule) => typeof rule === 'string'))) return `"${key}" must be a list of rules`;
  }
  for (const key of COUNTS) {
    const value = r[key];
    const min = key === 'maxRetries' ? 0 : 1;
    if (value !== undefined && (!Number.isInteger(value) || (value as number) < min)) return `"${key}" must be a whole number of at least ${min}`;
  }
  return agentsProblem(r.agents);
}

/** Why a request's `agents` cannot be the run's subagents (tools/agent/definitions.ts), or `undefined`. */
function agentsProblem(agents: unknown): string | undefined {
  if (agents === undefined) return undefined;
  try {
    agentDefinitions(agents, '"agents"');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export function toDurableResult(run: RunResult): DurableRunResult {
  return { ...run, context: { ...run.context, toolUseIds: [...run.context.toolUseIds] } };
}

export function fromDurableResult(result: DurableRunResult): RunResult {
  return { ...result, context: { ...result.context, toolUseIds: new Set(result.context.toolUseIds) } };
}
