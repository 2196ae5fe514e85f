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
import { createServer, type IncomingMessage } from 'node:http';
import { createWebSocketInspector } from '@statelyai/inspect';
import type { InspectionEvent, Observer } from 'xstate';
import { WebSocket, WebSocketServer } from 'ws';
import { listenOnLoopback } from '../loopback/listen.js';
import { checkToken, newToken, requestToken, sameToken, tokenCookie, tokenCookieName } from '../loopback/auth.js';

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
}

/** What a page sends when the Stately page could not load: the only message a viewer may send. */
export const UNAVAILABLE = '@agentloop.unavailable';

/** How long the page waits for the Stately page to connect before it says it could not load. */
const CONNECT_TIMEOUT_MS = 15_000;

/** JSON inside a `<script type="application/json">`: `<` escaped so it cannot close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function bridgePage(inspectorUrl: string, token: string, offline: StatelyInspectorOptions['offline'] = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>agentloop · Stately inspector</title>
<style>
  html, body { margin: 0; height: 100%; font: 14px system-ui, sans-serif; }
  iframe { width: 100%; height: calc(100% - 28px); border: 0; display: block; }
  [hidden] { display: none !important; }
  p { margin: 0; height: 28px; line-height: 28px; padding: 0 12px; background: #101828; color: #d0d5dd; font-size: 12px; }
  #offline { margin: 24px; padding: 16px 20px; border: 2px solid #f79009; border-radius: 10px; background: #fffaeb; font-size: 16px; line-height: 1.5; }
  #offline code, #offline a { font-size: 15px; overflow-wrap: anywhere; }
</style>
</head>
<body>
<p>agentloop: inspection events relayed from 127.0.0.1 to the Stately inspector below (it loads from ${inspectorUrl} and needs the internet).</p>
<div id="offline" data-testid="offline" hidden></div>
<iframe id="inspector" src="${inspectorUrl}"></iframe>
<script type="application/json" id="offline-config">${scriptJson({ inspectorUrl, ...offline })}</script>
<script>
  var config = JSON.parse(document.getElementById('offline-config').textContent);
  var frame = document.getElementById('inspector');
  var ready = false;
  var failed = false;
  var waiting = [];
  window.addEventListener('message', function (e) {
    if (e.data && e.data.type === '@statelyai.connected') {
      ready = true;
      waiting.forEach(function (event) { frame.contentWindow.postMessage(event, '*'); });
      waiting = [];
    }
  });
  var socket = new WebSocket('ws://' + location.host + '/?role=viewer&token=${token}');
  socket.onmessage = function (message) {
    var event = JSON.parse(message.data);
    if (ready) frame.contentWindow.postMessage(event, '*');
    else waiting.push(event);
  };
  // Offline, the Stately page cannot load: say so here (and, through the relay, in the terminal).
  function unavailable(reason) {
    if (ready || failed) return;
    failed = true;
    frame.hidden = true;
    var box = document.getElementById('offline');
    var line = function (text) { var p = document.createElement('div'); p.textContent = text; box.append(p); return p; };
    line('The Stately inspector could not load from ' + config.inspectorUrl + ' (' + reason + '). It needs the internet.');
    var where = line('The local step-through viewer shows the same run offline: ');
    if (config.viewerUrl) { var a = document.createElement('a'); a.href = config.viewerUrl; a.textContent = config.viewerUrl; where.append(a); }
    else if (config.command) { var c = document.createElement('code'); c.textContent = config.command; where.append(c); }
    box.hidden = false;
    var report = function () { socket.send(JSON.stringify({ type: '${UNAVAILABLE}', reason: reason })); };
    if (socket.readyState === 1) report(); else socket.addEventListener('open', report);
  }
  fetch(config.inspectorUrl, { mode: 'no-cors', cache: 'no-store' }).catch(function (e) { unavailable('it could not be reached: ' + e.message); });
  setTimeout(function () { unavailable('it did not answer within ${CONNECT_TIMEOUT_MS / 1000} s'); }, ${CONNECT_TIMEOUT_MS});
</script>
</body>
</html>`;
}

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

/** Starts the bridge on 127.0.0.1 and connects an inspector to it. */
export async function startStatelyInspector(options: StatelyInspectorOptions = {}): Promise<StatelyInspector> {
  const inspectorUrl = options.inspectorUrl ?? STATELY_INSPECTOR_URL;
  const maxReplay = options.maxReplay ?? 20_000;
  const replay: string[] = [];
  const viewers = new Set<WebSocket>();
  let port = 0;
  // Two tokens: the viewers' (printed in the URL) reads; the agent's (never shown) publishes.
  const viewerToken = newToken();
  const agentToken = newToken();
  const cookie = () => tokenCookieName('inspect', port);
  const url = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://127.0.0.1');
  let told = false;

  const http = createServer((req, res) => {
    const host = req.headers.host ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      res.writeHead(403).end();
      return;
    }
    const auth = checkToken(req, url(req), cookie(), viewerToken);
    if (!auth.ok) {
      res.writeHead(auth.status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${auth.error}\n`);
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'set-cookie': tokenCookie(cookie(), viewerToken),
    });
    res.end(bridgePage(inspectorUrl, viewerToken, options.offline));
  });
  /** Who a connection is by its token: the agent, a viewer, or nobody. */
  const roleOf = (req: IncomingMessage): 'agent' | 'viewer' | null => {
    const given = requestToken(req, url(req), cookie());
    if (given === undefined) return null;
    if (sameToken(given, agentToken)) return 'agent';
    return sameToken(given, viewerToken) ? 'viewer' : null;
  };
  // Browsers let any site open a WebSocket to 127.0.0.1: only our own page (or a client that
  // sends no Origin, the agent itself) may connect, and only with a token.
  const wss = new WebSocketServer({
    server: http,
    verifyClient: ({ origin, req }: { origin?: string; req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void) => {
      if (origin !== undefined && origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`) {
        done(false, 403, 'other sites may not connect');
        return;
      }
      const role = roleOf(req);
      if (role === null) done(false, 401, 'a token is needed');
      else done(true);
    },
  });
  wss.on('connection', (socket, req) => {
    if (roleOf(req) === 'viewer') {
      viewers.add(socket);
      for (const message of replay) socket.send(message);
      // Viewers only read: a viewer that sends anything but the one report is cut off, its message dropped.
      socket.on('message', (data) => {
        const reason = unavailableReason(data.toString());
        if (reason === undefined) return socket.close(1008, 'viewers only read');
        if (!told) options.onUnavailable?.(reason);
        told = true;
      });
      socket.on('close', () => viewers.delete(socket));
      return;
    }
    // The agent's side: everything it sends goes to every page, and is kept for late ones.
    socket.on('message', (data) => {
      const message = data.toString();
      replay.push(message);
      if (replay.length > maxReplay) replay.shift();
      for (const viewer of viewers) if (viewer.readyState === WebSocket.OPEN) viewer.send(message);
    });
  });

  port = await listenOnLoopback(http, options.port ?? 0);

  const inspector = createWebSocketInspector({ url: `ws://127.0.0.1:${port}/?role=agent&token=${agentToken}`, maxDeferredEvents: maxReplay });
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/?token=${viewerToken}`,
    token: viewerToken,
    inspect: inspector.inspect,
    get viewers() {
      return viewers.size;
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
