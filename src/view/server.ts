/**
 * `agentloop view`: a local web server for the step-through viewer. It serves one page (no CDN,
 * no network), the machine's diagram as JSON, and session timelines read from the transcripts,
 * live over server-sent events while a run is writing them.
 *
 * It listens on 127.0.0.1 only and answers only requests addressed to that host (a page on
 * another site cannot read transcripts through DNS rebinding).
 */
import { existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { agentMachine } from '../machine/agentMachine.js';
import { findSession, listSessions, readTranscript, SessionNotFoundError } from '../transcript/store.js';
import { CLIENT_FILES, clientFile, graphOf, machineView, viewerPage } from './assets.js';
import { buildTimeline, type Timeline } from './timeline.js';
import { listenOnLoopback } from '../loopback/listen.js';
import { checkToken, newToken, tokenCookie, tokenCookieName } from '../loopback/auth.js';

export interface ViewerOptions {
  /** `$AGENTLOOP_HOME`. */
  home: string;
  /** The session the page opens; default: the newest of `cwd`, else the newest of all. */
  sessionId?: string;
  cwd?: string;
  /** Default 0: any free port. */
  port?: number;
  /** How often a live page's transcript is checked for new records (default 150 ms). */
  pollMs?: number;
  /** The page follows the newest step (a run in progress) instead of starting at the first. */
  live?: boolean;
  /** Two sessions side by side, step by step, their first diverging request marked (`view --compare A B`). */
  compare?: [string, string];
}

export interface Viewer {
  /** `http://127.0.0.1:PORT/?token=TOKEN` (and `&session=ID` when a session was given). */
  readonly url: string;
  /** Asked of every request (see auth.ts); new at each start. */
  readonly token: string;
  readonly port: number;
  close(): Promise<void>;
}

export function sessionTimeline(home: string, id: string): Timeline {
  const transcript = readTranscript(findSession(home, id));
  return buildTimeline(transcript.records, graphOf(agentMachine), transcript.problems);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const { home } = options;
  const pollMs = options.pollMs ?? 150;
  const streams = new Set<ServerResponse>();
  let port = 0;
  const token = newToken();

  const defaultSession = (): string | null => {
    if (options.sessionId) return options.sessionId;
    const sessions = listSessions(home);
    return (sessions.find((s) => s.cwd === options.cwd) ?? sessions[0])?.id ?? null;
  };

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (!allowedHosts().has(req.headers.host ?? '')) return sendJson(res, 403, { error: 'unexpected Host header' });
    if (req.method !== 'GET') return sendJson(res, 405, { error: 'GET only' });
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const path = url.pathname;
    const cookie = tokenCookieName('view', port);
    const auth = checkToken(req, url, cookie, token);
    if (!auth.ok) return sendJson(res, auth.status, { error: auth.error });
    if (path === '/') {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        'set-cookie': tokenCookie(cookie, token),
      });
      res.end(viewerPage({ defaultSession: defaultSession(), startAtEnd: options.live === true, ...(options.compare ? { compare: options.compare } : {}) }));
      return;
    }
    if (path === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return;
    }
    const client = /^\/client\/([a-z.]+)$/.exec(path)?.[1];
    if (client && CLIENT_FILES[client]) {
      res.writeHead(200, { 'content-type': CLIENT_FILES[client], 'cache-control': 'no-store' });
      res.end(clientFile(client));
      return;
    }
    if (path === '/api/machine') {
      machineView(agentMachine).then(
        (view) => sendJson(res, 200, view),
        (error: unknown) => sendJson(res, 500, { error: String(error) }),
      );
      return;
    }
    if (path === '/api/sessions') return sendJson(res, 200, listSessions(home));
    const match = /^\/api\/sessions\/([A-Za-z0-9_-]+)(\/events)?$/.exec(path);
    if (match) {
      const id = match[1] as string;
      try {
        if (!match[2]) return sendJson(res, 200, sessionTimeline(home, id));
        return streamTimeline(id, res);
      } catch (error) {
        if (error instanceof SessionNotFoundError) return sendJson(res, 404, { error: error.message });
        throw error;
      }
    }
    sendJson(res, 404, { error: `nothing at ${path}` });
  };

  /** Sends the timeline now and again whenever the transcript grows. */
  const streamTimeline = (id: string, res: ServerResponse) => {
    const path = findSession(home, id);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    streams.add(res);
    let seen = '';
    const push = () => {
      if (!existsSync(path)) return;
      const stat = statSync(path);
      const version = `${stat.size}:${stat.mtimeMs}`;
      if (version === seen) return;
      seen = version;
      const transcript = readTranscript(path);
      res.write(`event: timeline\ndata: ${JSON.stringify(buildTimeline(transcript.records, graphOf(agentMachine), transcript.problems))}\n\n`);
    };
    push();
    const timer = setInterval(() => {
      try {
        push();
      } catch {
        // the file is being replaced or removed: try again at the next tick
      }
    }, pollMs);
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
    res.on('close', () => {
      clearInterval(timer);
      clearInterval(keepAlive);
      streams.delete(res);
    });
  };

  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    }
  });
  port = await listenOnLoopback(server, options.port ?? 0);
  const query = options.compare
    ? `&compare=${options.compare.map(encodeURIComponent).join(',')}`
    : options.sessionId
      ? `&session=${encodeURIComponent(options.sessionId)}`
      : '';
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}${query}`,
    token,
    port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const res of streams) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
