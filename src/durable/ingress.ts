/**
 * The client side of durable runs: calls to a Restate server's ingress (default port 8080) over
 * plain HTTP. A run is started with `/send` (it returns at once with the invocation's id) under an
 * idempotency key, so a submit sent twice starts one run; its result is awaited by attaching to
 * the invocation. Nothing here loads the SDK.
 */
import type { SessionRecord } from '../transcript/records.js';
import type { MessageParam } from '../core/messages.js';
import { RestateCallError, restateCall, type CallOptions } from './http.js';
import { SERVICE_NAME as SERVICE, type ApprovalAnswer, type DurableRunResult, type RunRequest, type RunStatus } from './protocol.js';

export { RestateCallError } from './http.js';


/** A read through a shared handler gives up after this long (a worker must answer it). */
const READ_TIMEOUT_MS = 10_000;

const call = <T>(url: URL, options: CallOptions) => restateCall<T>(url, { what: 'the Restate server', ...options });

const objectUrl = (ingress: string, sessionId: string, handler: string) =>
  new URL(`/${SERVICE}/${encodeURIComponent(sessionId)}/${handler}`, ingress);

/**
 * Starts a run of session `sessionId` (queued behind a run of it still going). Restate starts one
 * run per `key`: sent again with the same key (a retry after a broken connection), it answers with
 * the same invocation, `again` (whatever the request: admin.ts `submittedRequest` reads the first one's). `headers` go with the invocation: a W3C `traceparent` (and `tracestate`)
 * there becomes the parent of the run's trace on a worker that traces.
 */
export async function submitRun(
  ingress: string,
  sessionId: string,
  request: RunRequest,
  key: string,
  headers: Record<string, string> = {},
): Promise<{ invocationId: string; again: boolean }> {
  const answer = await call<{ invocationId?: string; status?: string }>(objectUrl(ingress, sessionId, 'run/send'), {
    method: 'POST',
    body: request,
    headers: { ...headers, 'idempotency-key': key },
  });
  if (!answer?.invocationId) throw new RestateCallError('Restate accepted the run but gave no invocation id');
  // PreviouslyAccepted: the key had started this invocation before (its request may have been another).
  return { invocationId: answer.invocationId, again: answer.status === 'PreviouslyAccepted' };
}

/** Waits for the invocation to finish and gives its result (`signal` gives the wait up). */
export function attachRun(ingress: string, invocationId: string, signal?: AbortSignal): Promise<DurableRunResult> {
  return call<DurableRunResult>(new URL(`/restate/invocation/${encodeURIComponent(invocationId)}/attach`, ingress), signal ? { signal } : {});
}

/*
 * Reads through the object's shared handlers: a worker answers them, within READ_TIMEOUT_MS (and
 * Restate gives up on them after three attempts). `agentloop result` and the other commands read
 * the state through the admin API instead (admin.ts), which needs no worker.
 */

export function runStatus(ingress: string, sessionId: string): Promise<RunStatus> {
  return call<RunStatus>(objectUrl(ingress, sessionId, 'status'), { method: 'POST', timeoutMs: READ_TIMEOUT_MS });
}

/** The session's records as a local transcript holds them (header first). */
export async function runTranscript(ingress: string, sessionId: string): Promise<SessionRecord[]> {
  return (await call<SessionRecord[] | null>(objectUrl(ingress, sessionId, 'transcript'), { method: 'POST', timeoutMs: READ_TIMEOUT_MS })) ?? [];
}

export async function runMessages(ingress: string, sessionId: string): Promise<MessageParam[]> {
  return (await call<MessageParam[] | null>(objectUrl(ingress, sessionId, 'messages'), { method: 'POST', timeoutMs: READ_TIMEOUT_MS })) ?? [];
}

/** Answers the call waiting on awakeable `awakeableId` (approvals.ts): any machine that reaches the ingress can. */
export async function resolveAwakeable(ingress: string, awakeableId: string, answer: ApprovalAnswer): Promise<void> {
  await call<unknown>(new URL(`/restate/awakeables/${encodeURIComponent(awakeableId)}/resolve`, ingress), { method: 'POST', body: answer, timeoutMs: READ_TIMEOUT_MS });
}
