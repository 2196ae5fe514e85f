/**
 * `agentloop view`: a local web server for the step-through viewer. It serves one page (no CDN,
 * no network), the machine's diagram as JSON, and session timelines read from the transcripts,
 * live over server-sent events while a run is writing them; for a stepped run (`--step`), what the
 * run waits before, and the two ways to let it go on (POST /api/step/next, /api/step/run).
 *
 * It listens on 127.0.0.1 only and answers only requests addressed to that host (a page on
 * another site cannot read transcripts through DNS rebinding), with the token of its URL.
 */
import { existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { agentMachine } from '../../machine/agentMachine.js';
import type { Stepper } from '../../run/gate.js';
import type { ApprovalFeed } from './approvals.js';
import { findSession, listSessions, newestSessionFor, SessionNotFoundError, type Transcript } from '../../transcript/store.js';
import { lineAt, TranscriptReader } from '../../transcript/reader.js';
import { CLIENT_FILES, clientFile, graphOf, machineView, viewerPage } from './assets.js';
import type { Timeline } from '../timeline/build.js';
import { runTimeline } from '../timeline/agents.js';
import { listenOnLoopback } from '../../loopback/listen.js';
import { checkToken, newToken, tokenCookie, tokenCookieName } from '../../loopback/auth.js';
import { noRedaction, type Redactor } from '../../core/redact.js';
import { setSecurityHeaders, VIEWER_CSP } from '../../loopback/headers.js';

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
  /** A stepped run (`--step`): the page shows what it waits before and lets it go on. */
  stepper?: Stepper;
  /** A durable run's calls that wait for an approval (`view --restate`): the page shows them, and how to answer. */
  approvals?: ApprovalFeed;
  /** How the page names agentloop in a command it offers (the CLI's cli/commandLine/self.ts); default `agentloop`. */
  command?: string;
  /** The lesson's language (`--lang`); absent: the page picks it from the browser's languages. */
  lang?: 'en' | 'zh';
  /** Every answer goes through it: a transcript written before redaction, or by another program, shows no secret. */
  redactor?: Redactor;
}

export interface Viewer {
  /** `http://127.0.0.1:PORT/?token=TOKEN` (and `&session=ID` when a session was given). */
  readonly url: string;
  /** Asked of every request (see auth.ts); new at each start. */
  readonly token: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A session's timeline, read by `reader` (lazily: a long record's long strings are cut, the
 * whole record is at `/api/sessions/ID/lines/N`; see transcript/reader.ts).
 */
export function sessionTimeline(home: string, id: string, reader = new TranscriptReader(findSession(home, id))): Timeline {
  return timelineOf(reader.read());
}

function timelineOf(transcript: Pick<Transcript, 'records' | 'problems'> & Partial<Pick<Transcript, 'damaged'>>): Timeline {
  return runTimeline(transcript.records, graphOf(agentMachine), transcript.problems, transcript.damaged);
}

/**
 * A record whose long strings the timeline cut, whole, as its line is in the transcript (through the
 * redactor when it has secrets to cut: the line is then read whole first).
 */
function sendLine(reader: TranscriptReader, line: number, res: ServerResponse, redactor: Redactor): void {
  const cut = reader.read().cuts.find((c) => c.line === line);
  if (!cut) return sendJson(res, 404, { error: `line ${line} is not a record the timeline cut` });
  const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  if (!redactor.active) {
    res.writeHead(200, { ...headers, 'content-length': cut.bytes });
    lineAt(reader.path, cut.offset).pipe(res);
    return;
  }
  const chunks: Buffer[] = [];
  lineAt(reader.path, cut.offset)
    .on('data', (chunk: Buffer) => chunks.push(chunk))
    .on('error', () => sendJson(res, 500, { error: `line ${line} could not be read` }))
    .on('end', () => sendText(res, redactor.jsonText(Buffer.concat(chunks).toString('utf8')), headers));
}

function sendText(res: ServerResponse, body: string, headers: Record<string, string>): void {
  res.writeHead(200, headers);
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown, redactor: Redactor = noRedaction): void {
  const body = redactor.json(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

/** What every handler needs: the options, the port once known, the token, the open event streams. */
interface ServerState {
  options: ViewerOptions;
  /** What every answer with data (sessions, timelines, the stepped run's state) goes through. */
  redactor: Redactor;
  port: number;
  token: string;
  streams: Set<ServerResponse>;
  /** One reader per transcript opened: each read reads only what the transcript gained since. */
  readers: Map<string, TranscriptReader>;
}

function readerOf(s: ServerState, id: string): TranscriptReader {
  return readerAt(s, findSession(s.options.home, id));
}

/** The transcript's one reader of this server: a timeline asked for again, or over events, reads only new bytes. */
function readerAt(s: ServerState, path: string): TranscriptReader {
  const reader = s.readers.get(path) ?? new TranscriptReader(path);
  s.readers.set(path, reader);
  return reader;
}

const ours = (s: ServerState) => new Set([`127.0.0.1:${s.port}`, `localhost:${s.port}`]);

/** The host, the method, the origin of a POST and the token; an answer has been sent when it returns false. */
function admitted(s: ServerState, req: IncomingMessage, res: ServerResponse, url: URL): boolean {
  if (!ours(s).has(req.headers.host ?? '')) return (sendJson(res, 403, { error: 'unexpected Host header' }), false);
  const post = req.method === 'POST' && url.pathname.startsWith('/api/step/');
  if (req.method !== 'GET' && !post) return (sendJson(res, 405, { error: 'GET only' }), false);
  // A page of another site may post a form here: only the viewer's own page may step the run.
  const origin = req.headers.origin;
  if (post && origin !== undefined && !ours(s).has(origin.replace(/^http:\/\//, ''))) return (sendJson(res, 403, { error: 'other sites may not step the run' }), false);
  const auth = checkToken(req, url, tokenCookieName('view', s.port), s.token);
  if (!auth.ok) return (sendJson(res, auth.status, { error: auth.error }), false);
  return true;
}

function defaultSession(s: ServerState): string | null {
  const { sessionId, home, cwd } = s.options;
  if (sessionId) return sessionId;
  const here = cwd === undefined ? undefined : newestSessionFor(home, cwd);
  return here?.id ?? listSessions(home, { read: 'headers' })[0]?.id ?? null;
}

function servePage(s: ServerState, res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'set-cookie': tokenCookie(tokenCookieName('view', s.port), s.token),
  });
  const { live, compare, stepper, approvals } = s.options;
  res.end(viewerPage({ defaultSession: defaultSession(s), startAtEnd: live === true, ...(compare ? { compare } : {}), ...(stepper ? { stepping: true } : {}), ...(approvals ? { approvals: true } : {}), ...(s.options.command ? { command: s.options.command } : {}), ...(s.options.lang ? { lang: s.options.lang } : {}) }));
}

function serveStatic(path: string, res: ServerResponse): boolean {
  if (path === '/favicon.ico') {
    res.writeHead(204).end();
    return true;
  }
  const client = /^\/client\/([a-z.]+)$/.exec(path)?.[1];
  if (!client || !CLIENT_FILES[client]) return false;
  res.writeHead(200, { 'content-type': CLIENT_FILES[client], 'cache-control': 'no-store' });
  res.end(clientFile(client));
  return true;
}

/** `/api/step` (GET: what the run waits before), `/api/step/next` and `/api/step/run` (POST). */
function serveStep(s: ServerState, req: IncomingMessage, path: string, res: ServerResponse): void {
  const stepper = s.options.stepper;
  if (!stepper) return sendJson(res, 404, { error: 'this run is not stepped (agentloop --step)' });
  if (req.method === 'GET' && path === '/api/step') return sendJson(res, 200, stepper.current, s.redactor);
  if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST only' });
  if (path === '/api/step/next') stepper.next();
  else if (path === '/api/step/run') stepper.runToEnd();
  else return sendJson(res, 404, { error: `nothing at ${path}` });
  sendJson(res, 200, stepper.current, s.redactor);
}

function serveApi(s: ServerState, req: IncomingMessage, path: string, res: ServerResponse): void {
  if (path === '/api/machine') {
    machineView(agentMachine).then(
      (view) => sendJson(res, 200, view),
      (error: unknown) => sendJson(res, 500, { error: String(error) }),
    );
    return;
  }
  if (path === '/api/step' || path.startsWith('/api/step/')) return serveStep(s, req, path, res);
  if (path === '/api/sessions') return sendJson(res, 200, listSessions(s.options.home), s.redactor);
  const match = /^\/api\/sessions\/([A-Za-z0-9_-]+)(\/events|\/lines\/(\d+))?$/.exec(path);
  if (!match) return sendJson(res, 404, { error: `nothing at ${path}` });
  const id = match[1] as string;
  try {
    if (match[3]) return sendLine(readerOf(s, id), Number(match[3]), res, s.redactor);
    if (!match[2]) return sendJson(res, 200, sessionTimeline(s.options.home, id, readerOf(s, id)), s.redactor);
    streamTimeline(s, findSession(s.options.home, id), res);
  } catch (error) {
    if (error instanceof SessionNotFoundError) return sendJson(res, 404, { error: error.message });
    throw error;
  }
}

/** Sends the timeline now and again whenever the transcript grows; a stepped run's state as it changes. */
function streamTimeline(s: ServerState, path: string, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
  s.streams.add(res);
  const reader = readerAt(s, path);
  let seen = '';
  const push = () => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    const version = `${stat.size}:${stat.mtimeMs}`;
    if (version === seen) return;
    seen = version;
    const transcript = reader.read();
    res.write(`event: timeline\ndata: ${s.redactor.json(timelineOf(transcript))}\n\n`);
  };
  const tick = () => {
    try {
      push();
    } catch {
      // the file is being replaced or removed: try again at the next tick
    }
  };
  tick();
  const timer = setInterval(tick, s.options.pollMs ?? 150);
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  const stepper = s.options.stepper;
  const sendStep = () => res.write(`event: step\ndata: ${s.redactor.json(stepper?.current)}\n\n`);
  const unsubscribe = stepper?.subscribe(() => {
    tick(); // the records up to the effect it waits before, then the effect
    sendStep();
  });
  if (stepper) sendStep();
  const { approvals } = s.options;
  const sendApprovals = () => res.write(`event: approvals\ndata: ${s.redactor.json(approvals?.current)}\n\n`);
  const unlisten = approvals?.subscribe(() => {
    tick(); // the records of the answered call, with it
    sendApprovals();
  });
  if (approvals) sendApprovals();
  res.on('close', () => {
    clearInterval(timer);
    clearInterval(keepAlive);
    unsubscribe?.();
    unlisten?.();
    s.streams.delete(res);
  });
}

function handle(s: ServerState, req: IncomingMessage, res: ServerResponse): void {
  setSecurityHeaders(res, VIEWER_CSP);
  const url = new URL(req.url ?? '/', `http://127.0.0.1:${s.port}`);
  if (!admitted(s, req, res, url)) return;
  const path = url.pathname;
  if (path === '/') return servePage(s, res);
  if (serveStatic(path, res)) return;
  serveApi(s, req, path, res);
}

function pageQuery(options: ViewerOptions): string {
  if (options.compare) return `&compare=${options.compare.map(encodeURIComponent).join(',')}`;
  return options.sessionId ? `&session=${encodeURIComponent(options.sessionId)}` : '';
}

export async function startViewer(options: ViewerOptions): Promise<Viewer> {
  const s: ServerState = { options, redactor: options.redactor ?? noRedaction, port: 0, token: newToken(), streams: new Set(), readers: new Map() };
  const server = createServer((req, res) => {
    try {
      handle(s, req, res);
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: error instanceof Error ? error.message : String(error) });
      else res.destroy();
    }
  });
  s.port = await listenOnLoopback(server, options.port ?? 0);
  // The diagram is laid out once per process (ELK, on this thread): begun now, it is ready or under way when the page asks.
  machineView(agentMachine).catch(() => undefined);
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${s.port}/?token=${s.token}${pageQuery(options)}`,
    token: s.token,
    port: s.port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        for (const res of s.streams) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
