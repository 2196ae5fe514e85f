/**
 * The client side of durable runs: calls to a Restate server's ingress (default port 8080) over
 * plain HTTP. A run is started with `/send` (it returns at once with the invocation's id) under an
 * idempotency key, so a submit sent twice starts one run; its result is awaited by attaching to
 * the invocation. Nothing here loads the SDK.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { SessionRecord } from '../transcript/records.js';
import type { MessageParam } from '../core/messages.js';
import type { DurableRunResult, RunRequest, RunStatus } from './protocol.js';

const SERVICE = 'AgentSession';

/** The ingress could not be reached, or answered with an error. */
export class IngressError extends Error {
  override readonly name = 'IngressError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * One HTTP call, with no time limit (attaching to a run waits as long as the run takes). Resolves
 * with the parsed JSON answer; an error status becomes an `IngressError` with Restate's message.
 */
function call<T>(url: URL, method: 'GET' | 'POST', body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<T>((resolve, reject) => {
    const req = send(url, { method, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        let value: unknown;
        try {
          value = text === '' ? null : JSON.parse(text);
        } catch {
          value = text;
        }
        if (status >= 200 && status < 300) return resolve(value as T);
        const message = (value as { message?: unknown } | null)?.message;
        reject(new IngressError(`Restate answered HTTP ${status}: ${typeof message === 'string' ? message : text.trim() || 'no message'}`, status));
      });
    });
    req.on('error', (error) => reject(new IngressError(`cannot reach Restate's ingress at ${url.origin}: ${error.message}`)));
    req.end(payload);
  });
}

const objectUrl = (ingress: string, sessionId: string, handler: string) =>
  new URL(`/${SERVICE}/${encodeURIComponent(sessionId)}/${handler}`, ingress);

/** Starts a run of session `sessionId` (queued behind a run of it still going); `key` makes a repeated submit start one run. */
export async function submitRun(ingress: string, sessionId: string, request: RunRequest, key: string): Promise<{ invocationId: string }> {
  const answer = await call<{ invocationId?: string }>(objectUrl(ingress, sessionId, 'run/send'), 'POST', request, { 'idempotency-key': key });
  if (!answer?.invocationId) throw new IngressError('Restate accepted the run but gave no invocation id');
  return { invocationId: answer.invocationId };
}

/** Waits for the invocation to finish and gives its result. */
export function attachRun(ingress: string, invocationId: string): Promise<DurableRunResult> {
  return call<DurableRunResult>(new URL(`/restate/invocation/${encodeURIComponent(invocationId)}/attach`, ingress), 'GET');
}

export function runStatus(ingress: string, sessionId: string): Promise<RunStatus> {
  return call<RunStatus>(objectUrl(ingress, sessionId, 'status'), 'POST');
}

/** The session's records as a local transcript holds them (header first). */
export async function runTranscript(ingress: string, sessionId: string): Promise<SessionRecord[]> {
  return (await call<SessionRecord[] | null>(objectUrl(ingress, sessionId, 'transcript'), 'POST')) ?? [];
}

export async function runMessages(ingress: string, sessionId: string): Promise<MessageParam[]> {
  return (await call<MessageParam[] | null>(objectUrl(ingress, sessionId, 'messages'), 'POST')) ?? [];
}
