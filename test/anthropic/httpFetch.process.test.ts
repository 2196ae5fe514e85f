/**
 * The loop's fetch over Node's `http` (src/anthropic/httpFetch.ts), against servers on 127.0.0.1 that answer as the
 * API would and as a broken one does: what the SDK reads of a response is what the global fetch gives (status, headers,
 * URL, text, JSON, the body's bytes); failures say what fetch says ("fetch failed" with the socket's error, "terminated"
 * mid-body, the abort's reason); connections are kept alive; what it does not carry (a redirect, a body of another
 * kind) goes to the global fetch. Then the SDK client the loop builds (client.ts) streams through it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { clientOptions, MessagesClient } from '../../src/anthropic/client.js';
import { httpFetch } from '../../src/anthropic/httpFetch.js';
import { closedPort } from '../support/closedPort.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server on 127.0.0.1 whose requests `handle` answers; the remote ports of its requests, in order. */
async function serve(handle: Handler): Promise<{ url: string; ports: number[] }> {
  const ports: number[] = [];
  const server = createServer((req, res) => {
    ports.push(req.socket.remotePort ?? 0);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ports };
}

/** A fetch's answer to a request, in the terms the SDK reads (the connection's own headers left out). */
async function seen(fetcher: typeof fetch, url: string, init?: RequestInit) {
  const response = await fetcher(url, init);
  const headers = [...response.headers].filter(([name]) => name !== 'keep-alive' && name !== 'connection');
  return { status: response.status, ok: response.ok, url: response.url, headers, text: await response.text() };
}

async function failureOf(promise: Promise<unknown>): Promise<{ name: string; message: string; cause?: string }> {
  try {
    await promise;
  } catch (error) {
    const { name, message, cause } = error as Error & { cause?: unknown };
    return { name, message, ...(cause instanceof Error ? { cause: (cause as NodeJS.ErrnoException).code ?? cause.message } : {}) };
  }
  throw new Error('did not fail');
}

describe('httpFetch gives what fetch gives', () => {
  it('a JSON answer and an error answer: status, headers, URL, text, JSON; the request as sent', async () => {
    const received: Array<{ method?: string; headers: IncomingMessage['headers']; body: string }> = [];
    const { url } = await serve((req, res, body) => {
      received.push({ method: req.method, headers: req.headers, body });
      const status = req.url === '/bad' ? 429 : 200;
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_1', 'retry-after': '3' });
      res.end(JSON.stringify({ type: status === 200 ? 'message' : 'error', note: 'ünïcode ✓' }));
    });
    const init = { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify({ a: 'ü' }) };
    for (const path of ['/v1/messages', '/bad']) {
      const mine = await seen(httpFetch, `${url}${path}`, init);
      const theirs = await seen(fetch, `${url}${path}`, init);
      expect(mine).toEqual(theirs);
      expect(mine.headers).toContainEqual(['request-id', 'req_1']);
    }
    const response = await httpFetch(`${url}/v1/messages`, init);
    expect(await response.json()).toEqual({ type: 'message', note: 'ünïcode ✓' });
    expect(received[0]).toMatchObject({ method: 'POST', body: '{"a":"ü"}', headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'content-length': '10' } });
  });

  it('the body as it streams: each chunk when the server writes it, before the response ends', async () => {
    let next: (() => void) | undefined;
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: one\n\n');
      next = () => res.end('event: two\n\n');
    });
    const response = await httpFetch(url);
    const got: string[] = [];
    for await (const chunk of response.body as unknown as AsyncIterable<Buffer>) {
      got.push(chunk.toString());
      next?.();
    }
    expect(got).toEqual(['event: one\n\n', 'event: two\n\n']);
  });

  it('a body the server compressed anyway (gzip, deflate, br) reads decompressed, as from fetch', async () => {
    const text = JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'ünïcode ✓ '.repeat(50) } });
    const encoders: Record<string, (b: Buffer) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
    const { url } = await serve((req, res) => {
      const encoding = (req.url ?? '/').slice(1);
      res.writeHead(529, { 'content-type': 'application/json', 'content-encoding': encoding });
      res.end((encoders[encoding] as (b: Buffer) => Buffer)(Buffer.from(text)));
    });
    for (const encoding of Object.keys(encoders)) {
      expect(await (await httpFetch(`${url}/${encoding}`)).text()).toBe(text);
      expect(await (await fetch(`${url}/${encoding}`)).text()).toBe(text);
    }
  });

  it('an error body that never ends: text() is cut past 64 MB with "terminated", its cause saying why; the SDK says the status', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1 << 20, 'x');
      const more = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    });
    const before = process.memoryUsage().rss;
    const cut = await failureOf((await httpFetch(url)).text());
    expect(cut).toEqual({ name: 'TypeError', message: 'terminated', cause: 'the response body passed 64 MB; it was cut' });
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 2 ** 20);
    const client = new MessagesClient(clientOptions({ apiKey: 'sk-test', baseURL: url }));
    const failed = await failureOf(client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }));
    expect(failed.message).toMatch(/^500 /);
  });

  it('keeps the connection alive: two requests one after the other share a socket', async () => {
    const { url, ports } = await serve((_req, res) => res.end('ok'));
    await (await httpFetch(url)).text();
    await (await httpFetch(url)).text();
    expect(ports).toHaveLength(2);
    expect(ports[1]).toBe(ports[0]);
  });

  it('a port nobody listens on: "fetch failed", its cause the socket\'s ECONNREFUSED, as fetch', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1/messages`;
    const mine = await failureOf(httpFetch(url));
    expect(mine).toEqual(await failureOf(fetch(url)));
    expect(mine).toEqual({ name: 'TypeError', message: 'fetch failed', cause: 'ECONNREFUSED' });
  });

  it('a connection reset mid-body: the reader gets "terminated", as from fetch', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': '1000' });
      res.write('event: one\n\n', () => setTimeout(() => res.socket?.resetAndDestroy(), 20));
    });
    const read = async (fetcher: typeof fetch) => {
      const response = await fetcher(url);
      return failureOf((async () => {
        for await (const _ of response.body as unknown as AsyncIterable<Buffer>) void _;
      })());
    };
    const mine = await read(httpFetch);
    expect({ name: mine.name, message: mine.message }).toEqual({ name: 'TypeError', message: 'terminated' });
    const theirs = await read(fetch);
    expect({ name: theirs.name, message: theirs.message }).toEqual({ name: 'TypeError', message: 'terminated' });
  });

  it('an abort: before the answer, the fetch rejects with the signal\'s reason; while the body streams, the reader throws it', async () => {
    const { url } = await serve((req, res) => {
      if (req.url === '/slow') return; // never answers
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: one\n\n');
    });
    const early = new AbortController();
    const pending = httpFetch(`${url}/slow`, { signal: early.signal });
    setTimeout(() => early.abort(), 50);
    expect(await failureOf(pending)).toEqual({ name: 'AbortError', message: 'This operation was aborted' });
    expect(await failureOf(httpFetch(url, { signal: early.signal }))).toEqual({ name: 'AbortError', message: 'This operation was aborted' });

    const late = new AbortController();
    const response = await httpFetch(url, { signal: late.signal });
    const reason = new Error('the run was stopped');
    const reading = failureOf((async () => {
      for await (const _ of response.body as unknown as AsyncIterable<Buffer>) late.abort(reason);
    })());
    expect(await reading).toEqual({ name: 'Error', message: 'the run was stopped' });
  });

  it('a redirect is followed (by the global fetch, as fetch follows one); a body of another kind goes to the global fetch', async () => {
    const { url } = await serve((req, res, body) => {
      if (req.url === '/old') {
        res.writeHead(307, { location: '/new' });
        return res.end();
      }
      res.end(`${req.method} ${req.url} ${body}`);
    });
    expect(await (await httpFetch(`${url}/old`, { method: 'POST', body: 'x' })).text()).toBe('POST /new x');
    const form = new URLSearchParams({ a: '1' });
    expect(await (await httpFetch(`${url}/form`, { method: 'POST', body: form })).text()).toBe('POST /form a=1');
  });
});

describe('the loop\'s SDK client streams through it', () => {
  it('a streamed reply reads as the same events through httpFetch and the global fetch', async () => {
    const frames = [
      ['message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } }],
      ['content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} } }],
      ['content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"command":"ls"}' } }],
      ['content_block_stop', { index: 0 }],
      ['message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }],
      ['message_stop', {}],
    ] as const;
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_9' });
      for (const [type, data] of frames) res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      res.end();
    });
    const events = async (client: MessagesClient) => {
      const { data, request_id } = await client.messages
        .create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], stream: true })
        .withResponse();
      const got: unknown[] = [];
      for await (const event of data) got.push(event);
      return { got, request_id };
    };
    const options = clientOptions({ apiKey: 'sk-test', baseURL: url });
    expect(options.fetch).toBe(httpFetch);
    const mine = await events(new MessagesClient(options));
    expect(mine.got.map((e) => (e as { type: string }).type)).toEqual(frames.map(([type]) => type));
    expect(mine).toEqual(await events(new MessagesClient({ ...options, fetch: globalThis.fetch })));
    expect(mine.request_id).toBe('req_9');
  });
});
