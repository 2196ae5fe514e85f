/**
 * The control protocol of Claude Code's stream-json, as the Claude Agent SDK speaks it (DESIGN.md section 8): besides
 * user messages, stdin carries `control_request` lines (the host asks: `initialize`, `interrupt`, `set_model`, ...),
 * `control_response` lines (the host answers what agentloop asked: `can_use_tool`, `hook_callback`, `mcp_message`),
 * `control_cancel_request` and `keep_alive`. Every request is answered exactly once, on stdout:
 * `{"type":"control_response","response":{"subtype":"success","request_id":R,"response":{...}}}` or
 * `{"type":"control_response","response":{"subtype":"error","request_id":R,"error":"..."}}`.
 */
import { randomUUID } from 'node:crypto';
import { jsonLine } from '../printers/terminal.js';

/** A control line read from stdin. */
export type ControlLine =
  | { type: 'control_request'; request_id: string; request: { subtype: string } & Record<string, unknown> }
  | { type: 'control_response'; response: { subtype: 'success' | 'error'; request_id: string; response?: unknown; error?: string } }
  | { type: 'control_cancel_request'; request_id: string }
  | { type: 'keep_alive' };

const CONTROL_TYPES = new Set(['control_request', 'control_response', 'control_cancel_request', 'keep_alive']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The control line `text` is, or why a line of a control type is not a good one (`{ error }`), or `undefined` when
 * it is no control line at all (a user message, or input to reject as such).
 */
export function parseControlLine(text: string): ControlLine | { error: string; requestId?: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || typeof value.type !== 'string' || !CONTROL_TYPES.has(value.type)) return undefined;
  if (value.type === 'keep_alive') return { type: 'keep_alive' };
  if (value.type === 'control_request') {
    const request = value.request;
    const id = value.request_id;
    if (typeof id !== 'string') return { error: 'a control_request needs a string request_id' };
    if (!isObject(request) || typeof request.subtype !== 'string') return { error: 'a control_request needs a request with a subtype', requestId: id };
    return { type: 'control_request', request_id: id, request: request as ControlLine & { subtype: string } };
  }
  if (value.type === 'control_cancel_request') {
    return typeof value.request_id === 'string' ? { type: 'control_cancel_request', request_id: value.request_id } : { error: 'a control_cancel_request needs a request_id' };
  }
  const response = value.response;
  if (!isObject(response) || typeof response.request_id !== 'string' || (response.subtype !== 'success' && response.subtype !== 'error')) {
    return { error: 'a control_response needs a response with a request_id and a subtype success or error' };
  }
  return { type: 'control_response', response: response as Extract<ControlLine, { type: 'control_response' }>['response'] };
}

/** The host answered a request of agentloop's with an error, or the channel closed first. */
export class ControlError extends Error {
  override readonly name = 'ControlError';
}

/**
 * Both directions of the protocol over one writer: `answer`/`refuse` reply to the host's requests; `ask` sends one of
 * agentloop's and settles with the host's answer (rejects with a ControlError on an error answer, on abort, or when
 * the channel closes: stdin ended with the question open).
 */
export class ControlChannel {
  private readonly pending = new Map<string, { resolve(value: unknown): void; reject(error: Error): void }>();
  private closed = false;

  constructor(private readonly write: (line: string) => void) {}

  answer(requestId: string, response: object = {}): void {
    this.out({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } });
  }

  refuse(requestId: string, error: string): void {
    this.out({ type: 'control_response', response: { subtype: 'error', request_id: requestId, error } });
  }

  /** Sends the request `subtype` with `body`; the host's answer (its `response` object). */
  ask(subtype: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new ControlError(`cannot ask the host (${subtype}): its input has ended`));
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        this.out({ type: 'control_cancel_request', request_id: id });
        reject(new ControlError(`${subtype} was cancelled`));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(isObject(value) ? value : {});
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      this.out({ type: 'control_request', request_id: id, request: { subtype, ...body } });
    });
  }

  /** A `control_response` from the host: settles the question it answers (an unknown id is ignored, as late answers are). */
  settle(response: Extract<ControlLine, { type: 'control_response' }>['response']): void {
    const waiting = this.pending.get(response.request_id);
    if (!waiting) return;
    this.pending.delete(response.request_id);
    if (response.subtype === 'success') waiting.resolve(response.response);
    else waiting.reject(new ControlError(response.error ?? 'the host answered with an error'));
  }

  /** stdin ended: no answer can come any more. */
  close(): void {
    this.closed = true;
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(new ControlError('the host ended its input before answering'));
    }
  }

  private out(line: object): void {
    this.write(jsonLine(line)); // exact data, secrets cut, no raw control character (../printers/terminal.ts)
  }
}
