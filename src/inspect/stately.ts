/**
 * `--inspect`: the running machine, live in the Stately inspector.
 *
 * `@statelyai/inspect`'s `createWebSocketInspector` sends the machine's inspection events over a
 * WebSocket; this module serves the other end on 127.0.0.1: a page that embeds the Stately
 * inspector (https://stately.ai/inspect, which needs the internet) and relays every event to it.
 *
 * The bridge is ours rather than the package's `createInspectorServer` because that one listens
 * on every network interface (the conversation would be readable from the LAN), on a fixed port
 * (8080 by default; its page has the port written in, so port 0 cannot work), and replays only
 * the last 200 events to a page opened late (a run's first turns would be missing).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createWebSocketInspector } from '@statelyai/inspect';
import type { AnyActorRef, InspectionEvent, Observer } from 'xstate';
import { WebSocket, WebSocketServer } from 'ws';
import { listenOnLoopback } from '../loopback/listen.js';
import { checkToken, newToken, requestToken, sameToken, tokenCookie, tokenCookieName } from '../loopback/auth.js';
import { setSecurityHeaders } from '../loopback/headers.js';
import { bridgePage, bridgePolicy, UNAVAILABLE } from './bridgePage.js';
import { noRedaction, type Redactor } from '../core/redact.js';

export const STATELY_INSPECTOR_URL = 'https://stately.ai/inspect';

export interface StatelyInspector {
  /** The page to open in a browser: `http://127.0.0.1:PORT/?token=TOKEN`. */
  readonly url: string;
  /** The viewers' token (in `url`): it reads the events, it cannot publish any. */
  readonly token: string;
  /** Pass as `runAgent`'s `inspect` option (or `createActor`'s). */
  readonly inspect: Observer<InspectionEvent>;
  /** Browsers connected now. */
  readonly viewers: number;
  close(): Promise<void>;
}

export interface StatelyInspectorOptions {
  /** Default 0: any free port. */
  port?: number;
  /** The inspector page embedded (default https://stately.ai/inspect). */
  inspectorUrl?: string;
  /** Events kept for a page opened late (default 20,000; the oldest are dropped past that). */
  maxReplay?: number;
  /**
   * Where the same run can be stepped through offline, shown by the page when the Stately page
   * cannot load: the local viewer's URL (`--view`), else the command that serves it.
   */
  offline?: { viewerUrl?: string; command?: string };
  /** Called once when a page reports that the Stately page could not load (and why). */
  onUnavailable?: (reason: string) => void;
  /** Every event relayed goes through it: the pages get no secret (the messages, the context of each snapshot). */
  redactor?: Redactor;
}

export { UNAVAILABLE };

/** The reason in a page's report that the Stately page could not load (undefined: not that report). */
function unavailableReason(message: string): string | undefined {
  try {
    const value = JSON.parse(message) as { type?: unknown; reason?: unknown };
    if (value.type !== UNAVAILABLE) return undefined;
    return typeof value.reason === 'string' ? value.reason.replace(/[^\x20-\x7e]/g, ' ').slice(0, 200) : 'no reason given';
  } catch {
    return undefined;
  }
}

/** What the relay's handlers share: its options, port, the two tokens, the events kept, the pages connected. */
interface Relay {
  options: StatelyInspectorOptions;
  inspectorUrl: string;
  maxReplay: number;
  port: number;
  /** The viewers' token (printed in the URL) reads; the agent's (never shown) publishes. */
  viewerToken: string;
  agentToken: string;
  replay: string[];
  viewers: Set<WebSocket>;
  /** Whether onUnavailable was called (it is called once). */
  told: boolean;
  /** What every event relayed goes through (options.redactor, or none). */
  redactor: Redactor;
}

const cookieOf = (relay: Relay) => tokenCookieName('inspect', relay.port);
const urlOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://127.0.0.1');

/** The page, to a request for this host with the viewers' token. */
function servePage(relay: Relay, req: IncomingMessage, res: ServerResponse): void {
  const nonce = randomBytes(16).toString('base64');
  setSecurityHeaders(res, bridgePolicy(relay.inspectorUrl, relay.port, nonce));
  const host = req.headers.host ?? '';
  if (host !== `127.0.0.1:${relay.port}` && host !== `localhost:${relay.port}`) {
    res.writeHead(403).end();
    return;
  }
  const auth = checkToken(req, urlOf(req), cookieOf(relay), relay.viewerToken);
  if (!auth.ok) {
    res.writeHead(auth.status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${auth.error}\n`);
    return;
  }
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'set-cookie': tokenCookie(cookieOf(relay), relay.viewerToken),
  });
  res.end(bridgePage(relay.inspectorUrl, relay.viewerToken, nonce, relay.options.offline));
}

/** Who a connection is by its token: the agent, a viewer, or nobody. */
function roleOf(relay: Relay, req: IncomingMessage): 'agent' | 'viewer' | null {
  const given = requestToken(req, urlOf(req), cookieOf(relay));
  if (given === undefined) return null;
  if (sameToken(given, relay.agentToken)) return 'agent';
  return sameToken(given, relay.viewerToken) ? 'viewer' : null;
}

type VerifyDone = (ok: boolean, code?: number, message?: string) => void;

/**
 * Browsers let any site open a WebSocket to 127.0.0.1: only our own page (or a client that sends no Origin, the agent
 * itself) may connect, and only with a token.
 */
function verifyClient(relay: Relay, { origin, req }: { origin?: string; req: IncomingMessage }, done: VerifyDone): void {
  if (origin !== undefined && origin !== `http://127.0.0.1:${relay.port}` && origin !== `http://localhost:${relay.port}`) {
    done(false, 403, 'other sites may not connect');
    return;
  }
  if (roleOf(relay, req) === null) done(false, 401, 'a token is needed');
  else done(true);
}

/** A page: it gets every event so far, then each new one; it may send only the report that the Stately page could not load. */
function addViewer(relay: Relay, socket: WebSocket): void {
  relay.viewers.add(socket);
  for (const message of relay.replay) socket.send(message);
  socket.on('message', (data) => {
    const reason = unavailableReason(data.toString());
    // Viewers only read: a viewer that sends anything but the one report is cut off, its message dropped.
    if (reason === undefined) return socket.close(1008, 'viewers only read');
    if (!relay.told) relay.options.onUnavailable?.(reason);
    relay.told = true;
  });
  socket.on('close', () => relay.viewers.delete(socket));
}

/** The agent's side: everything it sends goes to every page, and is kept for late ones. */
function addAgent(relay: Relay, socket: WebSocket): void {
  socket.on('message', (data) => {
    const message = relay.redactor.jsonText(data.toString());
    relay.replay.push(message);
    if (relay.replay.length > relay.maxReplay) relay.replay.shift();
    for (const viewer of relay.viewers) if (viewer.readyState === WebSocket.OPEN) viewer.send(message);
  });
}

/** A plain copy of a snapshot as JSON has it now (functions by name, as the Stately inspector writes them). */
function copyNow<T>(value: T): T {
  try {
    return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'function' ? { type: v.name } : v))) as T;
  } catch {
    return value; // circular: the inspector's own safe serialisation takes it as it is
  }
}

/**
 * The events as they are when they happen: `@statelyai/inspect` converts each event on a later tick and serialises it
 * when its socket sends (or when the socket opens), so a snapshot whose context another update changed in place
 * would reach the page holding what was written after its moment. Each snapshot is copied as it is received; an
 * actor is announced before it has a snapshot, so the announcement carries a copy of its first one.
 */
function atTheirMoment(inner: Observer<InspectionEvent>): Observer<InspectionEvent> {
  const firsts = new Map<string, unknown>();
  return {
    next(event) {
      const { sessionId } = event.actorRef;
      if (event.type === '@xstate.snapshot') {
        const snapshot = copyNow(event.snapshot);
        if (firsts.get(sessionId) === undefined && firsts.has(sessionId)) firsts.set(sessionId, snapshot);
        return inner.next?.({ ...event, snapshot });
      }
      if (event.type !== '@xstate.actor') return inner.next?.(event);
      firsts.set(sessionId, undefined);
      const getSnapshot = () => {
        const first = firsts.get(sessionId) ?? copyNow(event.actorRef.getSnapshot());
        firsts.delete(sessionId);
        return first;
      };
      inner.next?.({ ...event, actorRef: Object.create(event.actorRef, { getSnapshot: { value: getSnapshot } }) as AnyActorRef });
    },
  };
}

/** Starts the bridge on 127.0.0.1 and connects an inspector to it. */
export async function startStatelyInspector(options: StatelyInspectorOptions = {}): Promise<StatelyInspector> {
  const relay: Relay = {
    options,
    inspectorUrl: options.inspectorUrl ?? STATELY_INSPECTOR_URL,
    maxReplay: options.maxReplay ?? 20_000,
    port: 0,
    viewerToken: newToken(),
    agentToken: newToken(),
    replay: [],
    viewers: new Set(),
    told: false,
    redactor: options.redactor ?? noRedaction,
  };
  const http = createServer((req, res) => servePage(relay, req, res));
  const wss = new WebSocketServer({ server: http, verifyClient: (info: { origin?: string; req: IncomingMessage }, done: VerifyDone) => verifyClient(relay, info, done) });
  wss.on('connection', (socket, req) => (roleOf(relay, req) === 'viewer' ? addViewer(relay, socket) : addAgent(relay, socket)));
  relay.port = await listenOnLoopback(http, options.port ?? 0);

  const inspector = createWebSocketInspector({ url: `ws://127.0.0.1:${relay.port}/?role=agent&token=${relay.agentToken}`, maxDeferredEvents: relay.maxReplay });
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${relay.port}/?token=${relay.viewerToken}`,
    token: relay.viewerToken,
    inspect: atTheirMoment(inspector.inspect),
    get viewers() {
      return relay.viewers.size;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        inspector.stop();
        for (const client of wss.clients) client.terminate();
        wss.close();
        http.close(() => resolve());
        http.closeAllConnections();
      });
      return closed;
    },
  };
}
