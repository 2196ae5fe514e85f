/**
 * One HTTP call to a Restate server (its ingress or its admin API), with JSON in and out, and
 * errors said in one line: the server cannot be reached, did not answer in time, or answered an
 * error status with its message. No SDK here: the client commands load none.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** A call to the Restate server failed: `status` is set when it answered with an error. */
export class RestateCallError extends Error {
  override readonly name = 'RestateCallError';
  constructor(
    message: string,
    readonly status?: number,
    /** The request may have reached the server (the connection broke or timed out after it was sent). */
    readonly maybeDelivered = false,
  ) {
    super(message);
  }
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH';
  body?: unknown;
  headers?: Record<string, string>;
  /** Give up after this long (default: wait as long as it takes, as attaching to a run does). */
  timeoutMs?: number;
  /** Names the server in messages, e.g. "the Restate server" or "the Restate admin API". */
  what?: string;
  /** Ends the call (it rejects) when aborted: a wait given up. */
  signal?: AbortSignal;
}

/** Why a socket error happened, in a word or two (`ECONNREFUSED`, `ENOTFOUND`, ...). */
function reasonOf(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ?? error.message;
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function restateCall<T>(url: URL, options: CallOptions = {}): Promise<T> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const what = options.what ?? 'the Restate server';
  const headers = { ...(payload ? { 'content-type': 'application/json' } : {}), ...options.headers };
  return new Promise<T>((resolve, reject) => {
    let sent = false;
    const req = send(url, { method: options.method ?? 'GET', headers, ...(options.signal ? { signal: options.signal } : {}) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', (error) => reject(new RestateCallError(`${what} at ${url.origin} broke off its answer: ${reasonOf(error)}`, undefined, true)));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const value = parseBody(text);
        if (status >= 200 && status < 300) return resolve(value as T);
        const message = (value as { message?: unknown } | null)?.message;
        reject(new RestateCallError(`${what} at ${url.origin} answered HTTP ${status}: ${typeof message === 'string' ? message : text.trim() || 'no message'}`, status));
      });
    });
    // Once connected, the request may have reached the server, whatever happens next.
    req.on('socket', (socket) => {
      if (!socket.connecting) sent = true;
      else socket.once('connect', () => (sent = true));
    });
    if (options.timeoutMs !== undefined) {
      req.setTimeout(options.timeoutMs, () => {
        req.destroy();
        reject(new RestateCallError(`${what} at ${url.origin} did not answer within ${Math.round(options.timeoutMs as number / 1000)} s`, undefined, sent));
      });
    }
    req.on('error', (error) => {
      const reason = reasonOf(error);
      if (sent) reject(new RestateCallError(`${what} at ${url.origin} closed the connection before answering (${reason})`, undefined, true));
      else reject(new RestateCallError(`cannot reach ${what} at ${url.origin} (${reason})`));
    });
    req.end(payload);
  });
}
