/**
 * A durable run's call that must be asked about waits on a Restate awakeable: the question is kept in the session's
 * state (`approvals`, a list any machine reads through the admin API: approvalsClient.ts), and the handler awaits the
 * awakeable. While it waits the invocation is suspended (no worker holds it); it survives worker and server restarts;
 * the answer comes over the ingress (`POST /restate/awakeables/{id}/resolve`), from `agentloop approve` / `deny` or
 * any program. Restate journals the answer: a replay takes it from the journal, and never asks again.
 */
import * as restate from '@restatedev/restate-sdk';
import type { ToolUseBlock } from '../core/messages.js';
import type { Redactor } from '../core/redact.js';
import { APPROVALS, type ApprovalAnswer, type WaitingCall } from './protocol.js';

/** What a call asked about is answered: allowed, or denied with the reason the model gets. */
export type AskAnswer = { allow: true } | { allow: false; message: string };

export interface DurableAsk {
  block: ToolUseBlock;
  /** One line for the approver: `$ touch x`. */
  call: string;
  /** Why the rules and the mode did not decide it. */
  reason: string;
  /** When it was judged (journalled): the time the question is put. */
  at: number;
}

export interface AskOptions {
  /** Denied, with a reason the model sees, when no answer came within this long (journalled: a replay does not wait again). */
  timeoutMs?: number;
  redactor: Redactor;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** Keeps a well-formed answer; anything else denies (the awakeable takes any JSON). */
function answerOf(value: unknown): AskAnswer {
  const answer = value as { allow?: unknown; message?: unknown } | null;
  if (answer?.allow === true) return { allow: true };
  const message = typeof answer?.message === 'string' && answer.message.trim() !== '' ? answer.message.trim() : 'denied by the approver';
  return { allow: false, message };
}

/** Asks about `question` durably: the call waits, listed in `approvals`, until someone answers it (or the timeout denies it). */
export async function askDurably(ctx: restate.ObjectContext, question: DurableAsk, options: AskOptions): Promise<AskAnswer> {
  const { id, promise } = ctx.awakeable<ApprovalAnswer>();
  const waiting: WaitingCall = {
    toolUseId: question.block.id,
    tool: question.block.name,
    call: question.call,
    reason: question.reason,
    since: new Date(question.at).toISOString(),
    awakeableId: id,
    ...(options.timeoutMs !== undefined ? { deadline: new Date(question.at + options.timeoutMs).toISOString() } : {}),
  };
  const list = (await ctx.get<WaitingCall[]>(APPROVALS)) ?? [];
  ctx.set(APPROVALS, options.redactor.value([...list.filter((w) => w.toolUseId !== waiting.toolUseId), waiting]));
  let answer: AskAnswer;
  try {
    answer = answerOf(options.timeoutMs !== undefined ? await promise.orTimeout(options.timeoutMs) : await promise);
  } catch (error) {
    if (error instanceof restate.TimeoutError) answer = { allow: false, message: `not approved within ${seconds(options.timeoutMs ?? 0)}: denied` };
    else if (error instanceof restate.TerminalError) answer = { allow: false, message: error.message || 'denied by the approver' };
    else throw error;
  }
  const after = (await ctx.get<WaitingCall[]>(APPROVALS)) ?? [];
  ctx.set(APPROVALS, after.filter((w) => w.awakeableId !== id));
  return answer;
}
