/**
 * A local HTTP server that speaks the Anthropic Messages API wire format (DESIGN.md §4), for
 * integration tests that point the real `@anthropic-ai/sdk` client at it with `baseURL`.
 *
 * Tests script what the next requests get with `enqueue(...)`: replies (streamed as SSE when the
 * request asks for `stream: true`, JSON otherwise), HTTP errors in the API's error shape, and
 * faults in the middle of a stream (error event, socket reset, malformed SSE, stall).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type Anthropic from '@anthropic-ai/sdk';
import { ThinkingLedger } from './thinkingContract.js';

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

/** A request body as the client sent it (parsed JSON; the server does not check its shape). */
export type RequestBody = Anthropic.MessageCreateParams;

export type ScriptedBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string }
  /** Streamed whole in its content_block_start, as the API sends one (no deltas). */
  | { type: 'redacted_thinking'; data: string };

export interface UsageCounts {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** A successful reply. */
export interface ReplyStep {
  content: ScriptedBlock[];
  stop_reason: Anthropic.StopReason;
  /** Overrides the computed counts (input from `inputTokens`, output from the content length). */
  usage?: Partial<UsageCounts>;
  /** Defaults to the request's `model`. */
  model?: string;
  /** Pause between SSE frames for this reply; overrides `ServerOptions.eventDelayMs`. */
  delayMs?: number;
  /**
   * Streamed requests only: the last block is cut part-way (a tool_use's `input_json_delta`s stop
   * inside its JSON, a text/thinking block stops half-way) and gets no `content_block_stop`; then
   * `message_delta` and `message_stop` follow as usual. Use with `stop_reason: 'max_tokens'`.
   * A non-streamed request gets the content as scripted.
   */
  cutInsideLastBlock?: boolean;
  /**
   * Streamed requests only: the SSE frames as they go out, given those the reply would stream: for a server that
   * breaks the protocol (a block after `message_stop`, a second `content_block_start`, deltas of the wrong kind, ...).
   */
  rewrite?: (frames: SseFrame[]) => SseFrame[];
  /** The `request-id` header of the answer (default: a random `req_...`), as the API sends one with every answer. */
  requestId?: string;
}

/** An HTTP error answered as `{"type":"error","error":{type,message},"request_id"}`. */
export interface ErrorStep {
  error: { status: number; type: string; message: string };
  /** Extra response headers, e.g. `{ 'retry-after': '1' }`. */
  headers?: Record<string, string>;
  /**
   * The body as sent instead of the API's error JSON, with its content type: what a gateway in front of the API
   * answers (a 502 HTML page, say). `error.message` is then unused.
   */
  raw?: { body: string; contentType: string };
}

export type FaultKind = 'error-event-mid-stream' | 'reset-mid-stream' | 'end-mid-stream' | 'malformed-sse' | 'stall' | 'no-response';

/**
 * A stream that goes wrong: `message_start`, `ping` and the first `afterBlocks` blocks of
 * `content` are streamed, then the fault happens (no `message_delta` / `message_stop`).
 *
 * `end-mid-stream` closes the response cleanly, as a proxy that gives up might.
 *
 * `no-response` sends nothing at all, not even the status line, and keeps the connection open
 * (a request the API is still thinking about); `close()` destroys it.
 *
 * On a non-streamed request: `reset-mid-stream` and `end-mid-stream` destroy the socket before any response,
 * `stall` never answers, `malformed-sse` answers a cut-off JSON body, and
 * `error-event-mid-stream` answers 500 api_error saying it needs a streamed request.
 */
export interface FaultStep {
  fault: FaultKind;
  /** The reply being streamed when the fault hits. Defaults to no blocks. */
  content?: ScriptedBlock[];
  /** How many blocks of `content` are streamed whole before the fault. Defaults to all of them. */
  afterBlocks?: number;
  /** Also start the next block and stream part of it (no `content_block_stop`) before the fault. */
  midBlock?: boolean;
  /** For `error-event-mid-stream`: the error's type (default `overloaded_error`). */
  errorType?: string;
  /** For `error-event-mid-stream`: the error's message (default `Overloaded`). */
  message?: string;
  model?: string;
  usage?: Partial<UsageCounts>;
  delayMs?: number;
}

/**
 * A step computed from the request, e.g. to echo a tool_result back, or its headers (a gateway that echoes the key).
 * `index` is the request's index in `requests`, `request` the request as recorded. A promise holds the answer back
 * until it settles (a model that pauses until the test lets it go on).
 */
export type StepFn = (body: RequestBody, index: number, request: RecordedRequest) => Step | Promise<Step>;

export type Step = ReplyStep | ErrorStep | FaultStep | StepFn;

export interface RecordedRequest {
  method: string;
  /** Path including the query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** Lower-cased header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The parsed JSON body; `undefined` when the body was empty or not JSON. */
  body: RequestBody | undefined;
  /** True when the body asked for `stream: true`. */
  streamed: boolean;
  /**
   * `performance.now()` of this process when the request's headers were in (the server's `request` event; headers
   * that fit one packet arrive in the first read, so this is when its first bytes were read).
   */
  receivedAt: number;
}

/** An SSE frame of a streamed reply, as it goes out. */
export interface SseFrame {
  event: string;
  data: unknown;
}

export interface ServerOptions {
  /** Pause between SSE frames in ms (default 0). A step's `delayMs` overrides it. */
  eventDelayMs?: number;
  /**
   * With no pause between frames, send a whole streamed reply in one write, as a model that had
   * the reply ready at once would (default false: one write per SSE event, which makes the
   * client read each event separately).
   */
  oneWritePerReply?: boolean;
  /**
   * Called on every `POST /v1/messages` body before answering. If it throws, the message is
   * recorded in `violations` and the request is answered 400 invalid_request_error with that
   * message; the scripted step stays queued for the next request.
   */
  validate?: (body: RequestBody) => void;
  /** The `input_tokens` reported for a request (default: JSON length / 4, rounded up). */
  inputTokens?: (body: RequestBody) => number;
  /**
   * The pause in ms before each frame of a streamed reply, the first one included (e.g. a model's time to first token,
   * then a pace in tokens per second). Overrides `eventDelayMs` and a step's `delayMs`; every frame is its own write.
   * A non-streamed reply is answered after the sum of its frames' pauses.
   */
  framePause?: (frame: SseFrame, position: number) => number;
  /**
   * Called right before each frame of a streamed reply is written; `request` is its index in `requests`. For a
   * non-streamed reply, every frame of the same reply is reported at the moment its JSON is written.
   */
  onFrame?: (request: number, frame: SseFrame, at: number) => void;
  /**
   * Hold every request to extended thinking's rules (./thinkingContract.ts; default true). Off only for a server whose
   * replies are raw frames (`rewrite`) with thinking blocks the ledger never saw given, where the stream is the subject.
   */
  thinkingRules?: boolean;
  /**
   * A context window, in tokens: a request whose input (`inputTokens`) passes it is refused as the API refuses it,
   * 400 invalid_request_error "prompt is too long: N tokens > W maximum", before it takes a step. Records `refusedTooLong`.
   */
  contextWindow?: number;
  /** Text and tool-input deltas of at most this many characters (default: a text in 3 pieces, a tool input in 4). */
  deltaChars?: number;
}

export interface MessagesServer {
  /** `http://127.0.0.1:PORT`, usable as the SDK's `baseURL`. */
  readonly url: string;
  /** Every request received, in order, including rejected ones. */
  readonly requests: RecordedRequest[];
  /** Messages of the `validate` calls that threw. */
  readonly violations: string[];
  /** Indices in `requests` of the requests refused as past `contextWindow`. */
  readonly refusedTooLong: number[];
  /** Scripted steps not consumed yet. */
  readonly pending: number;
  /** Appends steps; each request to `POST /v1/messages` takes the next one. */
  enqueue(...steps: Step[]): void;
  /** Stops listening and destroys every open socket (stalled streams included). */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------------

export async function startMessagesServer(options: ServerOptions = {}): Promise<MessagesServer> {
  const requests: RecordedRequest[] = [];
  const violations: string[] = [];
  const tooLong: number[] = [];
  const queue: Step[] = [];
  const sockets = new Set<Socket>();
  // Extended thinking's rules (./thinkingContract.ts): every request is held to them.
  const thinking = new ThinkingLedger();
  const refuse = (res: ServerResponse, message: string) => {
    violations.push(message);
    sendApiError(res, 400, 'invalid_request_error', message);
  };

  const server = createServer((req, res) => {
    handleRequest(req, res).catch((err: unknown) => {
      // A bug in this file or a write to a destroyed socket: never leave the client hanging.
      if (!res.headersSent) sendApiError(res, 500, 'api_error', `test server failed: ${errorMessage(err)}`);
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = performance.now();
    const recorded = { ...(await recordRequest(req)), receivedAt };
    requests.push(recorded);
    const index = requests.length - 1;

    const rejection = rejectionOf(req, recorded.body, options.validate, violations);
    if (rejection) return sendApiError(res, rejection.status, rejection.type, rejection.message);
    const body = recorded.body as RequestBody; // rejectionOf refuses a missing body
    const tokens = options.contextWindow === undefined ? 0 : (options.inputTokens ?? defaultInputTokens)(body);
    if (options.contextWindow !== undefined && tokens > options.contextWindow) {
      tooLong.push(index);
      return sendApiError(res, 400, 'invalid_request_error', `prompt is too long: ${tokens} tokens > ${options.contextWindow} maximum`);
    }
    const broken = options.thinkingRules === false ? undefined : thinking.problem(body);
    if (broken !== undefined) return refuse(res, broken);

    const next = queue.shift();
    if (next === undefined) return sendApiError(res, 500, 'api_error', 'no scripted reply');
    const step = await resolveStep(next, body, index, recorded);
    const unasked = isErrorStep(step) || options.thinkingRules === false ? undefined : thinking.issue(body, step.content ?? []);
    if (unasked !== undefined) return refuse(res, unasked);
    return answerStep(res, step, body, options, index);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    violations,
    refusedTooLong: tooLong,
    get pending() {
      return queue.length;
    },
    enqueue(...steps: Step[]) {
      queue.push(...steps);
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Request helpers
// ---------------------------------------------------------------------------------------------

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pathname(path: string): string {
  return path.split('?')[0] ?? path;
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function hasCredentials(headers: IncomingHttpHeaders): boolean {
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.length > 0) return true;
  const bearer = /^Bearer\s+(\S+)/i.exec(headers.authorization ?? '');
  return bearer !== null;
}

async function recordRequest(req: IncomingMessage): Promise<Omit<RecordedRequest, 'receivedAt'>> {
  const parsed = parseJson(await readBody(req));
  // Typed as what the client meant to send; the shape is not checked (that is `validate`'s job).
  const body = isObject(parsed) ? (parsed as unknown as RequestBody) : undefined;
  return {
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers: flattenHeaders(req.headers),
    body,
    streamed: body?.stream === true,
  };
}

interface ApiErrorSpec {
  status: number;
  type: string;
  message: string;
}

/** Why the API would refuse this request before generating anything (route, auth, body, validator). */
function rejectionOf(
  req: IncomingMessage,
  body: RequestBody | undefined,
  validate: ServerOptions['validate'],
  violations: string[],
): ApiErrorSpec | undefined {
  const path = pathname(req.url ?? '/');
  if (req.method !== 'POST' || path !== '/v1/messages') {
    return { status: 404, type: 'not_found_error', message: `Not Found: ${req.method} ${path}` };
  }
  if (!hasCredentials(req.headers)) {
    return { status: 401, type: 'authentication_error', message: 'x-api-key header is required' };
  }
  if (body === undefined) {
    return { status: 400, type: 'invalid_request_error', message: 'request body must be a JSON object' };
  }
  try {
    validate?.(body);
  } catch (err) {
    violations.push(errorMessage(err));
    return { status: 400, type: 'invalid_request_error', message: errorMessage(err) };
  }
  return undefined;
}

async function resolveStep(step: Step, body: RequestBody, index: number, request: RecordedRequest): Promise<ReplyStep | ErrorStep | FaultStep> {
  let current = step;
  for (let depth = 0; typeof current === 'function'; depth++) {
    if (depth > 10) throw new Error('step functions nested more than 10 deep');
    current = await current(body, index, request);
  }
  return current;
}

function isErrorStep(step: ReplyStep | ErrorStep | FaultStep): step is ErrorStep {
  return 'error' in step;
}

function isFaultStep(step: ReplyStep | ErrorStep | FaultStep): step is FaultStep {
  return 'fault' in step;
}

function defaultInputTokens(body: RequestBody): number {
  return Math.max(1, Math.ceil(JSON.stringify(body).length / 4));
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function randomId(): string {
  return randomBytes(12).toString('base64url');
}

// ---------------------------------------------------------------------------------------------
// Answers (JSON)
// ---------------------------------------------------------------------------------------------

interface AnswerContext {
  messageId: string;
  model: string;
  inputTokens: number;
  delayMs: number;
  oneWrite: boolean;
  /** The request's index in `requests`. */
  request: number;
  deltaChars: number | undefined;
  framePause: ServerOptions['framePause'];
  onFrame: ServerOptions['onFrame'];
}

function answerStep(
  res: ServerResponse,
  step: ReplyStep | ErrorStep | FaultStep,
  body: RequestBody,
  options: ServerOptions,
  request: number,
): void | Promise<void> {
  if (isErrorStep(step) && step.raw) {
    res.writeHead(step.error.status, { 'content-type': step.raw.contentType, 'content-length': Buffer.byteLength(step.raw.body), ...step.headers });
    return void res.end(step.raw.body);
  }
  if (isErrorStep(step)) {
    return sendApiError(res, step.error.status, step.error.type, step.error.message, step.headers);
  }
  const ctx: AnswerContext = {
    messageId: `msg_${randomId()}`,
    model: step.model ?? body.model ?? 'claude-test',
    inputTokens: (options.inputTokens ?? defaultInputTokens)(body),
    delayMs: step.delayMs ?? options.eventDelayMs ?? 0,
    oneWrite: options.oneWritePerReply === true,
    request,
    deltaChars: options.deltaChars,
    framePause: options.framePause,
    onFrame: options.onFrame,
  };
  const streamed = body.stream === true;
  if (isFaultStep(step) && step.fault === 'no-response') return;
  if (isFaultStep(step)) return streamed ? streamFault(res, step, ctx) : answerFaultWithoutStream(res, step, ctx);
  return streamed ? streamReply(res, step, ctx) : answerJson(res, step, ctx);
}

/**
 * A non-streamed reply. With `framePause`, it comes once the whole reply would have streamed (the sum of its frames'
 * pauses), as the API answers when the message is complete; `onFrame` then reports every frame at the one write.
 */
async function answerJson(res: ServerResponse, reply: ReplyStep, ctx: AnswerContext): Promise<void> {
  if (ctx.framePause || ctx.onFrame) {
    const frames = replyToSseFrames(reply, ctx);
    const total = ctx.framePause ? frames.reduce((sum, frame, i) => sum + (ctx.framePause?.(frame, i) ?? 0), 0) : 0;
    if (total > 0) await sleep(total);
    if (res.destroyed) return;
    const at = performance.now();
    for (const frame of frames) ctx.onFrame?.(ctx.request, frame, at);
  }
  sendJson(res, 200, replyToMessage(reply, ctx), reply.requestId ? { 'request-id': reply.requestId } : {});
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': requestIdOf(payload) ?? `req_${randomId()}`,
    ...headers,
  });
  res.end(text);
}

function requestIdOf(payload: unknown): string | undefined {
  return isObject(payload) && typeof payload.request_id === 'string' ? payload.request_id : undefined;
}

/** Answers in the API's error shape, with the same id in the body and the `request-id` header. */
function sendApiError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { type: 'error', error: { type, message }, request_id: `req_${randomId()}` }, headers);
}

function resolveUsage(content: ScriptedBlock[], ctx: AnswerContext, override?: Partial<UsageCounts>): UsageCounts {
  return {
    input_tokens: ctx.inputTokens,
    output_tokens: Math.max(1, Math.ceil(JSON.stringify(content).length / 4)),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    ...override,
  };
}

/** The non-streamed `Message` for a reply. */
function replyToMessage(reply: ReplyStep, ctx: AnswerContext) {
  return {
    id: ctx.messageId,
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content: reply.content,
    stop_reason: reply.stop_reason,
    stop_sequence: null,
    usage: resolveUsage(reply.content, ctx, reply.usage),
  };
}

// ---------------------------------------------------------------------------------------------
// SSE encoding
// ---------------------------------------------------------------------------------------------

function encodeSseFrame(frame: SseFrame): string {
  return `event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`;
}

/** The whole SSE stream of a reply, as the API sends it. */
function replyToSseFrames(reply: ReplyStep, ctx: AnswerContext): SseFrame[] {
  const usage = resolveUsage(reply.content, ctx, reply.usage);
  const lastIndex = reply.content.length - 1;
  const blocks = reply.content.flatMap((block, index) =>
    blockFrames(block, index, reply.cutInsideLastBlock === true && index === lastIndex, ctx.deltaChars),
  );
  const frames = [...messageStartFrames(ctx, usage), ...blocks, ...messageEndFrames(reply.stop_reason, usage)];
  return reply.rewrite ? reply.rewrite(frames) : frames;
}

function messageStartFrames(ctx: AnswerContext, usage: UsageCounts): SseFrame[] {
  const message = {
    id: ctx.messageId,
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...usage, output_tokens: 1 },
  };
  return [
    { event: 'message_start', data: { type: 'message_start', message } },
    { event: 'ping', data: { type: 'ping' } },
  ];
}

function messageEndFrames(stopReason: Anthropic.StopReason, usage: UsageCounts): SseFrame[] {
  return [
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: usage.output_tokens },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
}

/** `content_block_start`, the deltas and (unless `cut`) `content_block_stop` of one block. */
function blockFrames(block: ScriptedBlock, index: number, cut: boolean, deltaChars?: number): SseFrame[] {
  const start = { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: emptyBlock(block) } };
  const deltas = blockDeltas(block, cut, deltaChars).map((delta) => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta },
  }));
  const stop = cut ? [] : [{ event: 'content_block_stop', data: { type: 'content_block_stop', index } }];
  return [start, ...deltas, ...stop];
}

function emptyBlock(block: ScriptedBlock) {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: {} };
    case 'thinking':
      return { type: 'thinking', thinking: '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
  }
}

/**
 * The deltas of a block; a `cut` block stops half-way (a tool_use inside its JSON). With `deltaChars`, each delta
 * holds at most that many characters; otherwise a text comes in 3 pieces and a tool input in 4.
 */
function blockDeltas(block: ScriptedBlock, cut: boolean, deltaChars?: number) {
  const pieces = (text: string, count: number) =>
    deltaChars === undefined ? splitIntoPieces(text, count) : splitIntoPieces(text, Math.ceil(text.length / deltaChars));
  switch (block.type) {
    case 'text':
      return pieces(firstHalfIf(cut, block.text), 3).map((text) => ({ type: 'text_delta', text }));
    case 'tool_use': {
      const json = firstHalfIf(cut, JSON.stringify(block.input));
      const parts = ['', ...pieces(json, 4)];
      return parts.map((partial_json) => ({ type: 'input_json_delta', partial_json }));
    }
    case 'thinking': {
      const thinking = pieces(firstHalfIf(cut, block.thinking), 3).map((text) => ({
        type: 'thinking_delta',
        thinking: text,
      }));
      return cut ? thinking : [...thinking, { type: 'signature_delta', signature: block.signature }];
    }
    case 'redacted_thinking':
      return [];
  }
}

function firstHalfIf(cut: boolean, text: string): string {
  return cut ? text.slice(0, Math.floor(text.length / 2)) : text;
}

/** Splits `text` into at most `count` non-empty pieces that concatenate back to it. */
function splitIntoPieces(text: string, count: number): string[] {
  if (text === '') return [];
  const size = Math.ceil(text.length / count);
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

// ---------------------------------------------------------------------------------------------
// Streaming answers
// ---------------------------------------------------------------------------------------------

function startSse(res: ServerResponse, requestId?: string): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': requestId ?? `req_${randomId()}`,
  });
  res.flushHeaders();
}

/**
 * Writes the frames, pausing `ctx.delayMs` between them (or `ctx.framePause` before each), or all in one write when
 * there is no pause and `ctx.oneWrite` is set; resolves once the last one is flushed.
 */
async function writeFrames(res: ServerResponse, frames: SseFrame[], ctx: AnswerContext): Promise<void> {
  const { delayMs, framePause, onFrame } = ctx;
  if (ctx.oneWrite && delayMs <= 0 && !framePause) {
    if (res.destroyed) return;
    const at = performance.now();
    for (const frame of frames) onFrame?.(ctx.request, frame, at);
    await new Promise<void>((resolve) => res.write(frames.map(encodeSseFrame).join(''), () => resolve()));
    return;
  }
  for (const [i, frame] of frames.entries()) {
    const pause = framePause ? framePause(frame, i) : i > 0 ? delayMs : 0;
    if (pause > 0) await sleep(pause);
    if (res.destroyed) return;
    onFrame?.(ctx.request, frame, performance.now());
    await new Promise<void>((resolve) => res.write(encodeSseFrame(frame), () => resolve()));
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function streamReply(res: ServerResponse, reply: ReplyStep, ctx: AnswerContext): Promise<void> {
  startSse(res, reply.requestId);
  await writeFrames(res, replyToSseFrames(reply, ctx), ctx);
  res.end();
}

async function streamFault(res: ServerResponse, fault: FaultStep, ctx: AnswerContext): Promise<void> {
  startSse(res);
  await writeFrames(res, framesBeforeFault(fault, ctx), { ...ctx, oneWrite: false });
  if (res.destroyed) return;
  if (ctx.delayMs > 0) await sleep(ctx.delayMs);
  switch (fault.fault) {
    case 'error-event-mid-stream':
      return sendErrorEvent(res, fault);
    case 'reset-mid-stream':
      return resetConnection(res);
    case 'end-mid-stream':
      return void res.end();
    case 'malformed-sse':
      return sendMalformedFrame(res);
    case 'stall':
      return stall();
  }
}

/** `message_start`, `ping`, the first `afterBlocks` blocks whole, and optionally part of the next. */
function framesBeforeFault(fault: FaultStep, ctx: AnswerContext): SseFrame[] {
  const content = fault.content ?? [];
  const whole = content.slice(0, fault.afterBlocks ?? content.length);
  const next = content[whole.length];
  const partial = fault.midBlock && next ? blockFrames(next, whole.length, true, ctx.deltaChars) : [];
  return [
    ...messageStartFrames(ctx, resolveUsage(content, ctx, fault.usage)),
    ...whole.flatMap((block, index) => blockFrames(block, index, false, ctx.deltaChars)),
    ...partial,
  ];
}

/** An `event: error` frame in the middle of the stream, then the stream ends. */
function sendErrorEvent(res: ServerResponse, fault: FaultStep): void {
  const error = { type: fault.errorType ?? 'overloaded_error', message: fault.message ?? 'Overloaded' };
  res.end(encodeSseFrame({ event: 'error', data: { type: 'error', error } }));
}

/** Drops the connection without finishing the chunked body. */
function resetConnection(res: ServerResponse): void {
  res.socket?.destroy();
}

/** A frame whose data line is not JSON (cut off mid-object), then the stream ends. */
function sendMalformedFrame(res: ServerResponse): void {
  res.end('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_del\n\n');
}

/** Sends nothing more and keeps the connection open; `close()` destroys it. */
function stall(): void {}

function answerFaultWithoutStream(res: ServerResponse, fault: FaultStep, ctx: AnswerContext): void {
  switch (fault.fault) {
    case 'reset-mid-stream':
    case 'end-mid-stream':
      return resetConnection(res);
    case 'stall':
      return stall();
    case 'malformed-sse': {
      const text = JSON.stringify(replyToMessage({ content: fault.content ?? [], stop_reason: 'end_turn' }, ctx));
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${randomId()}` });
      return void res.end(text.slice(0, Math.floor(text.length / 2)));
    }
    case 'error-event-mid-stream':
      return sendApiError(res, 500, 'api_error', 'fault error-event-mid-stream needs a streamed request');
  }
}
