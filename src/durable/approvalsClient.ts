/**
 * Answering a durable run's calls that wait for approval (approvals.ts), from any machine that reaches Restate: the
 * waiting calls are read through the admin API (the sessions' state), and a call is answered by resolving its
 * awakeable over the ingress. What `agentloop approvals`, `approve` and `deny` do, for a program as well. No SDK here.
 */
import { waitingCalls, type WaitingApproval } from './admin.js';
import { resolveAwakeable } from './ingress.js';
import { CHILD_SERVICE, SERVICE_NAME, type ApprovalAnswer } from './protocol.js';

export type { WaitingApproval } from './admin.js';

/** Where Restate is reached: its ingress (answers) and its admin API (the list). */
export interface RestateTarget {
  restate: string;
  admin: string;
}

/** Every call that waits for an answer, the oldest first (`sessionId`: the run's session, `toolUseId`, `call`, `since`, ...). */
export function listApprovals(target: RestateTarget): Promise<WaitingApproval[]> {
  return waitingCalls({ admin: target.admin }, SERVICE_NAME, CHILD_SERVICE);
}

/**
 * Answers call `toolUseId` of session `sessionId`: the run goes on (a denial's message is what the model gets). The
 * call answered, or undefined when no such call waits (never asked, or answered already).
 */
export async function answerApproval(target: RestateTarget, sessionId: string, toolUseId: string, answer: ApprovalAnswer): Promise<WaitingApproval | undefined> {
  const waiting = (await listApprovals(target)).find((call) => call.sessionId === sessionId && call.toolUseId === toolUseId);
  if (!waiting) return undefined;
  await resolveAwakeable(target.restate, waiting.awakeableId, answer);
  return waiting;
}

/** Allows the waiting call: it runs. */
export function approveCall(target: RestateTarget, sessionId: string, toolUseId: string): Promise<WaitingApproval | undefined> {
  return answerApproval(target, sessionId, toolUseId, { allow: true });
}

/** Denies the waiting call: it never runs, and the model gets `reason`. */
export function denyCall(target: RestateTarget, sessionId: string, toolUseId: string, reason = 'denied by the approver'): Promise<WaitingApproval | undefined> {
  return answerApproval(target, sessionId, toolUseId, { allow: false, message: reason });
}
