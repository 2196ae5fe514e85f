/**
 * The fetch the loop's SDK client sends its requests with: Node's own `http`/`https` (issue 40), for what the SDK sends
 * (a JSON body, or none), with a response whose body is the Node stream itself; anything else goes to the global fetch.
 *
 * Why not the global fetch (undici): its response runs through undici's JavaScript (the fetch algorithm, its
 * WebAssembly HTTP parser, web streams) where `http` parses in C++ and hands the body on as a Node stream, which the
 * SDK reads as it is (an async iterable). In a fresh process, its first streamed reply is read 3.7 ms sooner (the
 * server's write → the reply's first tool_use seen: median 8.4 → 4.7 ms), and a process with many runs at once spends
 * less per request (BENCHMARKS.md, peers (a) and "many at once"). Why not node-fetch, the library that does this: its
 * import takes 26 ms (it polyfills Blob and FormData), over twice what it would save on the first reply.
 *
 * Its headers are FetchHeaders (headers.ts), not undici's: the loop's requests load nothing of undici.
 *
 * What it keeps of fetch, as the SDK relies on it: the request's method, headers and body; the status, headers and
 * URL of the response; `text()` and `json()`, and the body decompressed where a server compressed it; keep-alive
 * connections (an agent per protocol); the signal, which aborts the request, or the body being read, with the
 * signal's reason (an AbortError: the SDK's timeouts and its stream's end). A failure says what fetch says: "fetch
 * failed" (the cause: the socket's error) before the response, and "terminated" while its body is read. A redirect is
 * followed by the global fetch, as fetch would follow it.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { FetchHeaders } from './headers.js';

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** The most of a body `text()` and `json()` read (a streamed one is read as it comes, by the SDK's SSE decoder). */
const MAX_WHOLE_BODY = 64 * 2 ** 20;

/** `fetch` over `http`/`https` for a string or bytes body (or none); the global fetch for anything else. */
export function httpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = typeof input === 'string' ? safeUrl(input) : input instanceof URL ? input : undefined;
  const body = init.body;
  const plainBody = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
  if (url === undefined || !plainBody || (url.protocol !== 'http:' && url.protocol !== 'https:')) return fetch(input, init);
  return send(url, init, body ?? undefined);
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function send(url: URL, init: RequestInit, body: string | Uint8Array | undefined): Promise<Response> {
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const headers = new FetchHeaders(init.headers as ConstructorParameters<typeof FetchHeaders>[0]);
    if (body !== undefined && !headers.has('content-length')) headers.set('content-length', String(Buffer.byteLength(body)));
    const secure = url.protocol === 'https:';
    let request: ReturnType<typeof httpRequest>;
    try {
      request = (secure ? httpsRequest : httpRequest)(url, {
        method: init.method ?? 'GET',
        headers: Object.fromEntries(headers),
        agent: secure ? agents.https : agents.http,
      });
    } catch (error) {
      return reject(new TypeError('fetch failed', { cause: error }));
    }
    let response: IncomingMessage | undefined;
    // The reader of the body throws the signal's reason (bodyOf); the request's own error is not waited for.
    const onAbort = () => {
      const aborted = new Error('aborted');
      if (response) response.destroy(aborted);
      else reject(abortReason(signal as AbortSignal));
      request.destroy(aborted);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    request.on('error', (error) => {
      done();
      reject(new TypeError('fetch failed', { cause: error }));
    });
    request.once('response', (incoming) => {
      response = incoming;
      incoming.once('close', done);
      if (REDIRECTS.has(incoming.statusCode ?? 0) && incoming.headers.location !== undefined) {
        incoming.resume();
        done();
        resolve(fetch(url, init));
        return;
      }
      resolve(responseOf(url, incoming, signal));
    });
    request.end(body);
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** The parts of a `Response` the SDK reads, over the Node stream of the body. */
function responseOf(url: URL, incoming: IncomingMessage, signal: AbortSignal | undefined): Response {
  const headers = new FetchHeaders();
  const raw = incoming.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const status = incoming.statusCode ?? 0;
  const body = bodyOf(incoming, signal);
  let used = false;
  const text = async (): Promise<string> => {
    used = true;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      // A body read whole (an error's, a reply not streamed) of the Messages API is kilobytes; a server that sends on
      // and on is cut, not held (fetch would hold it all).
      if (size > MAX_WHOLE_BODY) {
        incoming.destroy();
        throw new TypeError('terminated', { cause: new Error(`the response body passed ${MAX_WHOLE_BODY / 2 ** 20} MB; it was cut`) });
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  };
  const response = {
    status,
    statusText: incoming.statusMessage ?? '',
    ok: status >= 200 && status < 300,
    headers,
    url: url.href,
    redirected: false,
    type: 'basic',
    body,
    get bodyUsed() {
      return used;
    },
    text,
    json: async (): Promise<unknown> => JSON.parse(await text()),
  };
  return response as unknown as Response;
}

/**
 * The body as the SDK reads it: one async iterator of its chunks (asked for again, the same one), whose `return`
 * (the SDK's cancel, a loop left early) closes the connection's response. Its failure while read is fetch's: the
 * signal's reason when aborted, else "terminated" with the socket's error as its cause.
 */
function bodyOf(incoming: IncomingMessage, signal: AbortSignal | undefined): AsyncIterable<Buffer> {
  incoming.on('error', () => undefined); // seen by the reader, if any; never an uncaught error
  const source = decoded(incoming);
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of source) yield chunk as Buffer;
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      throw new TypeError('terminated', { cause: error });
    }
    if (!incoming.complete) throw new TypeError('terminated', { cause: new Error('the connection closed before the body ended') });
  }
  const reading = chunks();
  const iterator: AsyncIterableIterator<Buffer> = {
    next: () => reading.next(),
    return: async (value?: unknown) => {
      if (!incoming.complete) incoming.destroy();
      return reading.return(value as Buffer);
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

/**
 * The body as sent, or decompressed where the server compressed it (`content-encoding`), as fetch gives it. None is
 * asked for (no `accept-encoding` goes out), but a gateway may compress anyway.
 */
function decoded(incoming: IncomingMessage): Readable {
  const encoding = incoming.headers['content-encoding']?.trim().toLowerCase();
  if (encoding === undefined || encoding === 'identity') return incoming;
  // Loaded here, not with the module: no process start pays for it (0.5 ms) while nothing comes compressed.
  const zlib = createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib');
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : encoding === 'br' ? zlib.createBrotliDecompress() : undefined;
  if (decoder === undefined) return incoming;
  incoming.on('error', (error) => decoder.destroy(error));
  return incoming.pipe(decoder);
}
