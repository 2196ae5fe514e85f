import { outOfFiles } from '../core/openFiles.js';
import { AnthropicError, APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk/core/error';
import { ModelError, type ModelErrorKind } from '../core/model.js';

const kindByApiType: Record<string, ModelErrorKind> = {
  rate_limit_error: 'rate_limit',
  overloaded_error: 'overloaded',
  api_error: 'server',
  timeout_error: 'timeout',
  request_too_large: 'prompt_too_long',
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
};

function kindByStatus(status: number): ModelErrorKind {
  if (status === 429) return 'rate_limit';
  if (status === 529) return 'overloaded';
  if (status === 413) return 'prompt_too_long';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server';
  return 'invalid_request';
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const after = headers?.get('retry-after');
  if (!after) return undefined;
  if (Number.isFinite(Number(after))) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Turns whatever the SDK threw into a `ModelError` the machine can reason about. `midStream`
 * says whether the reply had started to arrive; `reading`, whether the response was being read
 * (its headers were in).
 */
export function toModelError(error: unknown, midStream: boolean, reading = false): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError('timeout', 'the request to the API timed out', { midStream });
  }
  if (error instanceof APIConnectionError) {
    return new ModelError('connection', `could not reach the API: ${causeOf(error)}`, { midStream });
  }
  if (error instanceof APIError) {
    const apiType = error.type ?? undefined;
    const message = error.apiMessage ?? error.message;
    let kind: ModelErrorKind =
      (apiType && kindByApiType[apiType]) || (error.status !== undefined ? kindByStatus(error.status) : 'unknown');
    if (kind === 'invalid_request' && /prompt is too long/i.test(message)) kind = 'prompt_too_long';
    const after = retryAfterMs(error.headers);
    return new ModelError(kind, message, {
      ...(error.status !== undefined ? { status: error.status } : {}),
      ...(apiType ? { apiType } : {}),
      ...(after !== undefined ? { retryAfterMs: after } : {}),
      ...(error.requestID ? { requestId: error.requestID } : {}),
      midStream,
    });
  }
  // A stream cut off ("terminated"), garbled (a JSON SyntaxError) or out of protocol is a broken
  // connection; while the response is read, anything but an API error is.
  if (reading || error instanceof AnthropicError || error instanceof SyntaxError) {
    const message = error instanceof Error ? causeOf(error) : String(error);
    return new ModelError('connection', `the API stream broke off: ${message}`, { midStream });
  }
  return new ModelError('unknown', error instanceof Error ? error.message : String(error), { midStream });
}

function causeOf(error: Error): string {
  const files = outOfFiles(error);
  if (files) return `out of file descriptors: ${files}`;
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && cause !== error.message ? `${error.message} (${cause})` : error.message;
}
