/**
 * `agentloop balancer`: one HTTP/2 address in front of several workers. Restate sends every attempt
 * of a run to the address the run started on, so workers share one address to take over each
 * other's runs; this is the smallest balancer that does it on one machine or a few.
 *
 * Each attempt of a run is one HTTP/2 stream; each stream goes to the next worker that answers, in
 * turn. Every backend is pinged (HTTP/2 PING) every `pingIntervalMs`: one that does not answer
 * within `pingTimeoutMs` (dead, frozen by SIGSTOP, cut off) is taken out and its connection
 * dropped, which ends the attempts it held: Restate retries them at once, and they land on a
 * worker that answers. A backend that answers pings again is taken back.
 *
 * Hand-written rather than a dependency: node:http2 holds all of it, and the general proxies on
 * npm (http-proxy and its kin) speak HTTP/1.1 to their backends, which Restate's bidirectional
 * streams do not survive.
 */
import { connect, constants, createServer, type ClientHttp2Session, type Http2Server, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { closer, listen } from './serving.js';

export interface BalancerOptions {
  /** The workers' addresses (`http://HOST:PORT`). */
  backends: string[];
  /** Default 9080; 0 for any free port. */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Every backend is pinged this often (default 2000; 0: never, a plain proxy that trusts its backends). */
  pingIntervalMs?: number;
  /** A backend that does not answer a ping within this is taken out (default 3000). */
  pingTimeoutMs?: number;
  /** Says when a backend is taken out or back. */
  log?: (line: string) => void;
}

export interface Balancer {
  url: string;
  /** Streams handed to each backend, by its URL. */
  counts: Map<string, number>;
  /** Streams open now, by backend URL. */
  open: Map<string, number>;
  /** The backends that answer (or have not been asked yet). */
  live(): string[];
  /** Resolves true once some backend has answered a ping, false after `timeoutMs` without one. */
  answered(timeoutMs: number): Promise<boolean>;
  /** New streams go to these backends; the streams open on others go on. */
  setBackends(urls: string[]): void;
  close(): Promise<void>;
}

/** Where the balancer answers for itself: the list of its workers, and a worker joining (agentloop worker --register finds it here). */
export const POOL_PATH = '/agentloop/backends';

const isLoopback = (address: string | undefined) => address === '::1' || /^(::ffff:)?127\./.test(address ?? '');

/** A worker's address as a join gives it, or undefined. */
function joinable(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function readJson(stream: ServerHttp2Stream): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (text += chunk).length > 10_000 && stream.destroy());
    stream.on('end', () => {
      try {
        resolve(JSON.parse(text));
      } catch (error) {
        reject(error);
      }
    });
    stream.on('error', reject);
  });
}

const HOP = new Set([':method', ':path', ':scheme', ':authority', ':status', 'connection', 'host']);

/** One backend: its connection, and whether it answered its last ping. */
class Backend {
  session: ClientHttp2Session | undefined;
  up = true;
  /** It has answered a ping at least once. */
  answered = false;
  private pinging = false;

  constructor(
    readonly url: string,
    private readonly onChange: (backend: Backend, up: boolean) => void,
  ) {}

  connection(): ClientHttp2Session {
    if (!this.session || this.session.closed || this.session.destroyed) {
      const session = connect(this.url);
      session.on('error', () => this.mark(false));
      session.on('close', () => this.session === session && (this.session = undefined));
      this.session = session;
    }
    return this.session;
  }

  /** Pings the backend (connecting if need be); no answer within `timeoutMs` takes it out. */
  check(timeoutMs: number): void {
    if (this.pinging) return;
    this.pinging = true;
    const session = this.connection();
    const timer = setTimeout(() => done(false), timeoutMs);
    const done = (answered: boolean) => {
      if (!this.pinging) return;
      this.pinging = false;
      clearTimeout(timer);
      if (!answered) session.destroy(); // its attempts end: Restate retries them elsewhere
      if (answered) this.answered = true;
      this.mark(answered);
    };
    const ping = () => {
      if (!session.ping((error) => done(!error))) done(false);
    };
    if (session.connecting) session.once('connect', ping);
    else ping();
  }

  mark(up: boolean): void {
    if (this.up === up) return;
    this.up = up;
    this.onChange(this, up);
  }

  close(): void {
    this.session?.destroy();
  }
}

/** Copies a stream's headers, without the ones that belong to one hop. */
function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (!HOP.has(k) && v !== undefined) out[k] = v;
  return out;
}

const count = (map: Map<string, number>, url: string, by: number) => map.set(url, (map.get(url) ?? 0) + by);

/** The workers behind the balancer: which of them answer, whose turn it is, and how many streams each was handed. */
class Pool {
  backends: Backend[];
  /** Backends taken out of the list whose streams may still be open. */
  private retired: Backend[] = [];
  private next = 0;
  /** Streams handed to each backend, by its URL. */
  readonly counts = new Map<string, number>();
  /** Streams open now, by backend URL. */
  readonly open = new Map<string, number>();

  constructor(
    urls: string[],
    private readonly log: (line: string) => void,
    private readonly pingTimeoutMs: number,
  ) {
    this.backends = urls.map((url) => this.backend(url));
  }

  private backend(url: string): Backend {
    return new Backend(url, (backend, up) => this.log(`${backend.url} ${up ? 'answers again: taken back' : 'does not answer: taken out'}`));
  }

  /** The next backend that answers, in turn; undefined when none does. */
  pick(): Backend | undefined {
    const live = this.backends.filter((b) => b.up);
    return live[this.next++ % Math.max(1, live.length)];
  }

  live(): string[] {
    return this.backends.filter((b) => b.up).map((b) => b.url);
  }

  urls(): string[] {
    return this.backends.map((b) => b.url);
  }

  checkAll(): void {
    this.backends.forEach((b) => b.check(this.pingTimeoutMs));
  }

  async answered(waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    while (!this.backends.some((b) => b.answered)) {
      if (Date.now() > deadline) return false;
      this.checkAll();
      await new Promise((r) => setTimeout(r, 100));
    }
    return true;
  }

  /** A worker joining: added unless it is there already. */
  join(url: string): void {
    if (!this.backends.some((b) => b.url === url)) this.backends = [...this.backends, this.backend(url)];
    this.log(`${url} joined`);
  }

  setBackends(urls: string[]): void {
    const known = new Map([...this.retired, ...this.backends].map((b) => [b.url, b]));
    this.backends = urls.map((url) => known.get(url) ?? this.backend(url));
    this.retired = [...known.values()].filter((b) => !urls.includes(b.url));
  }

  close(): void {
    for (const b of [...this.backends, ...this.retired]) b.close();
  }
}

/** Hands an attempt's stream to the next worker that answers, and pipes the two together until either ends. */
function forward(pool: Pool, stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
  const backend = pool.pick();
  stream.on('error', () => {}); // a reset stream: Restate retries the attempt
  if (!backend) {
    stream.respond({ ':status': 503 });
    stream.end('no worker answers');
    return;
  }
  const upstream = backend.connection().request({ ':method': String(headers[':method']), ':path': String(headers[':path']), ...endToEnd(headers) });
  count(pool.open, backend.url, 1);
  upstream.on('response', (h) => {
    count(pool.counts, backend.url, 1);
    if (!stream.destroyed) stream.respond({ ':status': Number(h[':status']), ...endToEnd(h) });
    upstream.pipe(stream);
  });
  upstream.on('error', () => {
    if (!stream.destroyed) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  });
  upstream.on('close', () => {
    count(pool.open, backend.url, -1);
    // A worker that died or was dropped closes its streams without a word: the attempt is over.
    if (!stream.destroyed && !stream.writableEnded) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  });
  stream.on('close', () => {
    if (!upstream.closed) upstream.close(constants.NGHTTP2_CANCEL);
  });
  stream.pipe(upstream);
}

/** The balancer answering for itself (POOL_PATH): the list of its workers, or a worker of this machine joining. */
function answerPool(pool: Pool, stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
  const answer = (status: number, body: unknown) => {
    stream.respond({ ':status': status, 'content-type': 'application/json' });
    stream.end(JSON.stringify(body));
  };
  if (headers[':method'] === 'GET') return answer(200, { backends: pool.urls() });
  if (!isLoopback(stream.session?.socket?.remoteAddress)) return answer(403, { message: 'workers join from this machine only; list the others with --backend' });
  readJson(stream).then((body) => {
    const url = joinable((body as { url?: unknown } | undefined)?.url);
    if (!url) return answer(400, { message: 'a join names the worker: {"url": "http://HOST:PORT"}' });
    pool.join(url);
    answer(200, { backends: pool.urls() });
  }, () => answer(400, { message: 'a join is JSON' }));
}

export async function startBalancer(options: BalancerOptions): Promise<Balancer> {
  const pool = new Pool(options.backends, options.log ?? (() => {}), options.pingTimeoutMs ?? 3000);
  const server: Http2Server = createServer();
  server.on('stream', (stream, headers) => (String(headers[':path']).startsWith(POOL_PATH) ? answerPool(pool, stream, headers) : forward(pool, stream, headers)));
  const close = closer(server);
  const { url } = await listen(server, options.port ?? 9080, options.host ?? '127.0.0.1');
  const pingIntervalMs = options.pingIntervalMs ?? 2000;
  const checks = pingIntervalMs > 0 ? setInterval(() => pool.checkAll(), pingIntervalMs) : undefined;
  checks?.unref();
  if (checks) pool.checkAll();
  return {
    url,
    counts: pool.counts,
    open: pool.open,
    live: () => pool.live(),
    answered: (waitMs) => pool.answered(waitMs),
    setBackends: (urls) => pool.setBackends(urls),
    close: () => {
      clearInterval(checks);
      pool.close();
      return close();
    },
  };
}
