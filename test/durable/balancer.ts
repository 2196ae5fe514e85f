/**
 * A small HTTP/2 load balancer, as workers on several machines sit behind one in production: the
 * Restate server knows one deployment address, and each invocation attempt (one HTTP/2 stream)
 * goes to the next live worker in turn. A worker that cannot be reached is skipped from then on; a
 * stream cut by a dying worker (or sent to one) is reset, and Restate retries the invocation, which lands on another worker.
 */
import { connect, constants, createServer, type ClientHttp2Session, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  url: string;
  /** Streams handed to each backend, by its URL. */
  counts: Map<string, number>;
  /** Streams open now, by backend URL. */
  open: Map<string, number>;
  setBackends(urls: string[]): void;
  close(): Promise<void>;
}

const HOP = new Set([':method', ':path', ':scheme', ':authority', ':status', 'connection', 'host']);

export async function startBalancer(backends: string[]): Promise<Balancer> {
  let urls = [...backends];
  let next = 0;
  const sessions = new Map<string, ClientHttp2Session>();
  const counts = new Map<string, number>();
  const open = new Map<string, number>();
  const dead = new Set<string>();

  const session = (url: string): ClientHttp2Session => {
    let s = sessions.get(url);
    if (!s || s.closed || s.destroyed) {
      s = connect(url);
      s.on('error', () => dead.add(url));
      s.on('close', () => sessions.delete(url));
      sessions.set(url, s);
    }
    return s;
  };

  const forward = (stream: ServerHttp2Stream, headers: Record<string, string | string[] | undefined>) => {
    const live = urls.filter((u) => !dead.has(u));
    const pool = live.length > 0 ? live : urls;
    const url = pool[next++ % pool.length] as string;
    const out: Record<string, string | string[]> = { ':method': String(headers[':method']), ':path': String(headers[':path']) };
    for (const [k, v] of Object.entries(headers)) if (!HOP.has(k) && v !== undefined) out[k] = v;
    const upstream = session(url).request(out);
    open.set(url, (open.get(url) ?? 0) + 1);
    upstream.on('response', (h) => {
      counts.set(url, (counts.get(url) ?? 0) + 1);
      const back: Record<string, string | string[] | number> = { ':status': Number(h[':status']) };
      for (const [k, v] of Object.entries(h)) if (!HOP.has(k) && v !== undefined) back[k] = v;
      if (!stream.destroyed) stream.respond(back);
      upstream.pipe(stream);
    });
    upstream.on('error', () => {
      // Restate retries the attempt; the next one goes to another worker.
      dead.add(url);
      if (!stream.destroyed) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    });
    upstream.on('close', () => {
      open.set(url, (open.get(url) ?? 1) - 1);
      // A worker that died closes its streams without a word: the attempt is over.
      if (!stream.destroyed && !stream.writableEnded) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    });
    stream.on('error', () => {}); // a reset stream: Restate retries the attempt
    stream.on('close', () => {
      if (!upstream.closed) upstream.close(constants.NGHTTP2_CANCEL);
    });
    stream.pipe(upstream);
  };

  const server: Http2Server = createServer();
  server.on('stream', (stream, headers) => forward(stream, headers));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    open,
    setBackends(list) {
      urls = [...list];
      for (const u of list) dead.delete(u);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions.values()) s.destroy();
        server.close(() => resolve());
      }),
  };
}
