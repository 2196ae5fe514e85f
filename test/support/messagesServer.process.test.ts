import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startMessagesServer, type MessagesServer, type ScriptedBlock, type ServerOptions } from './messagesServer.js';

let server: MessagesServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(options?: ServerOptions): Promise<{ server: MessagesServer; client: Anthropic }> {
  server = await startMessagesServer(options);
  const client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0, logLevel: 'off' });
  return { server, client };
}

const request = {
  model: 'claude-test',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'list the files' }],
} satisfies Anthropic.MessageCreateParamsNonStreaming;

/** `request` asking for extended thinking: only such a request gets thinking blocks (./thinkingContract.ts). */
const thinkingRequest = { ...request, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 } } satisfies Anthropic.MessageCreateParamsNonStreaming;

const text = (t: string): ScriptedBlock => ({ type: 'text', text: t });
const bashCall: ScriptedBlock = {
  type: 'tool_use',
  id: 'toolu_01',
  name: 'bash',
  input: { command: 'ls -la /tmp', timeout: 120, flags: ['a', 'l'] },
};

/** Streams `request`, keeping each content block as the SDK completes it; `final` is the stream's finalMessage(). */
function streamKeepingBlocks(client: Anthropic) {
  const stream = client.messages.stream(request);
  const blocks: Anthropic.ContentBlock[] = [];
  stream.on('contentBlock', (block) => blocks.push(block));
  return { stream, blocks, final: stream.finalMessage() };
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

interface RawFrame {
  event: string;
  data: unknown;
}

/** POSTs with fetch and splits the SSE body into frames, checking each is `event: X\ndata: JSON`. */
async function rawStream(url: string, body: object): Promise<{ response: Response; frames: RawFrame[] }> {
  const response = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': 'test', 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const raw = await response.text();
  expect(raw.endsWith('\n\n')).toBe(true);
  const frames = raw
    .slice(0, -2)
    .split('\n\n')
    .map((chunk) => {
      const match = /^event: (\S+)\ndata: (.*)$/.exec(chunk);
      expect(match, chunk).not.toBeNull();
      return { event: match![1]!, data: JSON.parse(match![2]!) as unknown };
    });
  return { response, frames };
}

// Frames are untyped JSON here; reading fields by path is the point of these wire-level checks.
type AnyJson = any;

describe('replies', () => {
  it('answers a non-streamed request with a Message', async () => {
    const { server, client } = await setup();
    server.enqueue({ content: [text('Hello.'), bashCall], stop_reason: 'tool_use', usage: { cache_read_input_tokens: 7 } });

    const message = await client.messages.create(request);

    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [text('Hello.'), bashCall],
      stop_reason: 'tool_use',
      stop_sequence: null,
    });
    expect(message.id).toMatch(/^msg_/);
    expect(message._request_id).toMatch(/^req_/);
    expect(message.usage).toEqual({
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 7,
    });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it('takes input_tokens from the inputTokens option and the model from the step', async () => {
    const { server, client } = await setup({ inputTokens: (body) => body.messages.length * 100 });
    server.enqueue({ content: [text('ok')], stop_reason: 'end_turn', model: 'claude-other' });

    const message = await client.messages.create(request);

    expect(message.usage.input_tokens).toBe(100);
    expect(message.model).toBe('claude-other');
  });

  it('streams text and a tool_use through messages.stream()', async () => {
    const { server, client } = await setup();
    server.enqueue({ content: [text('Let me look at the files.'), bashCall], stop_reason: 'tool_use' });

    const { stream, blocks, final } = streamKeepingBlocks(client);
    const texts: string[] = [];
    const jsonPieces: string[] = [];
    stream.on('text', (delta) => texts.push(delta));
    stream.on('inputJson', (partial) => jsonPieces.push(partial));
    const message = await final;

    expect(texts.length).toBeGreaterThan(1);
    expect(texts.join('')).toBe('Let me look at the files.');
    expect(jsonPieces[0]).toBe('');
    expect(jsonPieces.join('')).toBe(JSON.stringify(bashCall.type === 'tool_use' && bashCall.input));
    expect(blocks.map((b) => b.type)).toEqual(['text', 'tool_use']);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([{ type: 'text', text: 'Let me look at the files.' }, bashCall]);
    expect(message.usage.output_tokens).toBeGreaterThan(1);
  });

  it('streams a thinking block with its signature', async () => {
    const { server, client } = await setup();
    const thinking: ScriptedBlock = { type: 'thinking', thinking: 'The user wants a listing.', signature: 'sig_abc' };
    server.enqueue({ content: [thinking, text('Done.')], stop_reason: 'end_turn' });

    const message = await client.messages.stream(thinkingRequest).finalMessage();

    expect(message.content).toEqual([thinking, text('Done.')]);
  });

  it('puts exactly the API events on the wire', async () => {
    const { server } = await setup();
    const thinking: ScriptedBlock = { type: 'thinking', thinking: 'hmm', signature: 'sig' };
    server.enqueue({ content: [thinking, text('Hi there'), bashCall], stop_reason: 'tool_use' });

    const { response, frames } = await rawStream(server.url, thinkingRequest);

    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    const [start, ping] = frames as AnyJson[];
    expect(start.event).toBe('message_start');
    expect(start.data.message).toMatchObject({ type: 'message', role: 'assistant', content: [], stop_reason: null });
    expect(start.data.message.usage.input_tokens).toBeGreaterThan(0);
    expect(ping).toEqual({ event: 'ping', data: { type: 'ping' } });
    for (const frame of frames) expect((frame.data as AnyJson).type).toBe(frame.event);

    const blockStarts = frames.filter((f) => f.event === 'content_block_start').map((f) => (f.data as AnyJson).content_block);
    expect(blockStarts).toEqual([
      { type: 'thinking', thinking: '' },
      { type: 'text', text: '' },
      { type: 'tool_use', id: 'toolu_01', name: 'bash', input: {} },
    ]);
    const deltasOf = (index: number) =>
      frames.filter((f) => f.event === 'content_block_delta' && (f.data as AnyJson).index === index).map((f) => (f.data as AnyJson).delta);
    expect(deltasOf(0).map((d) => d.type)).toEqual([...deltasOf(0).slice(0, -1).map(() => 'thinking_delta'), 'signature_delta']);
    expect(deltasOf(1).map((d) => d.text).join('')).toBe('Hi there');
    expect(deltasOf(2)[0]).toEqual({ type: 'input_json_delta', partial_json: '' });
    expect(deltasOf(2).map((d) => d.partial_json).join('')).toBe(JSON.stringify((bashCall as AnyJson).input));
    expect(frames.filter((f) => f.event === 'content_block_stop').map((f) => (f.data as AnyJson).index)).toEqual([0, 1, 2]);

    const [delta, stop] = frames.slice(-2) as AnyJson[];
    expect(delta.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: expect.any(Number) },
    });
    expect(stop).toEqual({ event: 'message_stop', data: { type: 'message_stop' } });
  });

  it('computes a reply from the request with a step function', async () => {
    const { server, client } = await setup();
    server.enqueue((body, index) => {
      const last = body.messages.at(-1);
      const result = Array.isArray(last?.content) ? last.content.find((b) => b.type === 'tool_result') : undefined;
      const output = result?.type === 'tool_result' && typeof result.content === 'string' ? result.content : '?';
      return { content: [text(`request ${index} said: ${output}`)], stop_reason: 'end_turn' };
    });

    const message = await client.messages.create({
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: [bashCall as Anthropic.ToolUseBlockParam] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'a.txt b.txt' }] },
      ],
    });

    expect(message.content).toEqual([text('request 0 said: a.txt b.txt')]);
  });

  it('tolerates ?beta=true', async () => {
    // SDK 1.16's client.beta.messages does not append ?beta=true (it sends an anthropic-beta
    // header), but other clients do, so this goes through fetch.
    const { server } = await setup();
    server.enqueue({ content: [text('beta ok')], stop_reason: 'end_turn' });

    const response = await fetch(`${server.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'x-api-key': 'test', 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });

    expect(response.status).toBe(200);
    expect(((await response.json()) as AnyJson).content).toEqual([text('beta ok')]);
    expect(server.requests[0]?.path).toBe('/v1/messages?beta=true');
  });

  it('oneWritePerReply: the same bytes on the wire, all of them in one chunk', async () => {
    const reply = { content: [text('Hi there'), bashCall], stop_reason: 'tool_use' as const, usage: { input_tokens: 7, output_tokens: 9 } };
    const bodies: string[] = [];
    for (const oneWritePerReply of [false, true]) {
      const { server } = await setup({ oneWritePerReply });
      server.enqueue(reply);
      const response = await fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': 'test', 'content-type': 'application/json' },
        body: JSON.stringify({ ...request, stream: true }),
      });
      const chunks: string[] = [];
      const decoder = new TextDecoder();
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) chunks.push(decoder.decode(chunk, { stream: true }));
      if (oneWritePerReply) expect(chunks).toHaveLength(1);
      bodies.push(chunks.join('').replace(/msg_[\w-]+/g, 'msg_X'));
      await server.close();
    }
    expect(bodies[1]).toBe(bodies[0]);
  });

  it('pauses eventDelayMs between frames', async () => {
    const { server, client } = await setup({ eventDelayMs: 3 });
    server.enqueue({ content: [text('abc')], stop_reason: 'end_turn' });

    const started = performance.now();
    await client.messages.stream(request).finalMessage();

    // message_start, ping, block start, 3 deltas, block stop, message_delta, message_stop: 8 pauses.
    expect(performance.now() - started).toBeGreaterThanOrEqual(8 * 3 - 2);
  });

  it('framePause paces each frame, onFrame reports each write, deltaChars sizes the deltas', async () => {
    const writes: Array<{ request: number; event: string; at: number }> = [];
    const { server } = await setup({
      deltaChars: 4,
      framePause: (frame, position) => (position === 0 ? 30 : frame.event === 'content_block_delta' ? 5 : 0),
      onFrame: (request, frame, at) => writes.push({ request, event: frame.event, at }),
    });
    server.enqueue({ content: [text('abcdefghij'), bashCall], stop_reason: 'tool_use' });

    const { frames } = await rawStream(server.url, request);

    const deltas = frames.filter((f) => f.event === 'content_block_delta').map((f) => (f.data as AnyJson).delta);
    const texts = deltas.filter((d) => d.type === 'text_delta').map((d) => d.text);
    expect(texts).toEqual(['abcd', 'efgh', 'ij']);
    const json = deltas.filter((d) => d.type === 'input_json_delta').map((d) => d.partial_json as string);
    expect(json.join('')).toBe(JSON.stringify(bashCall.type === 'tool_use' && bashCall.input));
    expect(json.slice(1).every((piece) => piece.length <= 4)).toBe(true);
    // One report per frame on the wire, in order, all for request 0.
    expect(writes.map((w) => w.event)).toEqual(frames.map((f) => f.event));
    expect(new Set(writes.map((w) => w.request))).toEqual(new Set([0]));
    // The first frame waits for its pause after the request came in; every delta waits its 5 ms.
    const received = server.requests[0]!.receivedAt;
    expect(writes[0]!.at - received).toBeGreaterThanOrEqual(28);
    writes.forEach((w, i) => {
      if (w.event === 'content_block_delta' && i > 0) expect(w.at - writes[i - 1]!.at).toBeGreaterThanOrEqual(4);
    });
  });

  it('framePause holds a non-streamed reply until it would have streamed whole; onFrame reports its frames at that write', async () => {
    const writes: Array<{ event: string; at: number }> = [];
    const { server, client } = await setup({
      framePause: (frame) => (frame.event === 'content_block_delta' ? 10 : 0),
      onFrame: (_request, frame, at) => writes.push({ event: frame.event, at }),
    });
    server.enqueue({ content: [text('abc')], stop_reason: 'end_turn' });

    const message = await client.messages.create(request);

    expect(message.content).toEqual([text('abc')]);
    // Three text deltas of 10 ms each before the JSON goes out.
    expect(writes[0]!.at - server.requests[0]!.receivedAt).toBeGreaterThanOrEqual(28);
    expect(writes.map((w) => w.event)).toContain('content_block_stop');
    expect(new Set(writes.map((w) => w.at)).size).toBe(1);
  });
});

describe('HTTP errors', () => {
  it('surfaces 429 as RateLimitError with its headers', async () => {
    const { server, client } = await setup();
    server.enqueue({
      error: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your rate limit' },
      headers: { 'retry-after': '7' },
    });

    const err = await rejectionOf(client.messages.create(request));

    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    const rateLimit = err as InstanceType<typeof Anthropic.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.headers.get('retry-after')).toBe('7');
    expect(rateLimit.requestID).toMatch(/^req_/);
    expect(rateLimit.error).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your rate limit' },
      request_id: rateLimit.requestID,
    });
  });

  it('surfaces 529 as InternalServerError with type overloaded_error', async () => {
    const { server, client } = await setup();
    server.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });

    const err = await rejectionOf(client.messages.create(request));

    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect(err).toBeInstanceOf(Anthropic.OverloadedError);
    const overloaded = err as InstanceType<typeof Anthropic.InternalServerError>;
    expect(overloaded.status).toBe(529);
    expect((overloaded.error as AnyJson).error.type).toBe('overloaded_error');
    expect(overloaded.type).toBe('overloaded_error');
  });

  it('surfaces 500, 400 and 413 as their typed errors', async () => {
    const { server, client } = await setup();
    server.enqueue(
      { error: { status: 500, type: 'api_error', message: 'Internal server error' } },
      { error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
      { error: { status: 413, type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } },
    );

    const serverError = await rejectionOf(client.messages.create(request));
    const tooLong = await rejectionOf(client.messages.create(request));
    const tooLarge = await rejectionOf(client.messages.create(request));

    expect(serverError).toBeInstanceOf(Anthropic.InternalServerError);
    expect(tooLong).toBeInstanceOf(Anthropic.BadRequestError);
    expect((tooLong as APIError).message).toContain('prompt is too long: 210000 tokens > 200000 maximum');
    expect((tooLong as APIError).type).toBe('invalid_request_error');
    expect(tooLarge).toBeInstanceOf(Anthropic.ContentTooLargeError);
    expect((tooLarge as APIError).status).toBe(413);
  });

  it('answers a streamed request with the HTTP error before any event', async () => {
    const { server, client } = await setup();
    server.enqueue({ error: { status: 429, type: 'rate_limit_error', message: 'slow down' } });

    const err = await rejectionOf(client.messages.stream(request).finalMessage());

    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
  });

  it('requires x-api-key or a bearer token', async () => {
    const { server } = await setup();
    server.enqueue({ content: [text('bearer ok')], stop_reason: 'end_turn' });
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/v1/messages`, { method: 'POST', headers, body: JSON.stringify(request) });

    const anonymous = await post({ 'content-type': 'application/json' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('request-id')).toMatch(/^req_/);
    expect(await anonymous.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: expect.any(String) },
      request_id: anonymous.headers.get('request-id'),
    });

    const bearer = await post({ authorization: 'Bearer token-123' });
    expect(bearer.status).toBe(200);
    expect(server.pending).toBe(0);
  });

  it('answers unknown routes 404 not_found_error', async () => {
    const { server } = await setup();

    const response = await fetch(`${server.url}/v1/complete`, { method: 'POST', headers: { 'x-api-key': 'k' }, body: '{}' });

    expect(response.status).toBe(404);
    expect(((await response.json()) as AnyJson).error.type).toBe('not_found_error');
  });

  it('answers 500 "no scripted reply" when the queue is empty, and records it', async () => {
    const { server, client } = await setup();

    const err = await rejectionOf(client.messages.create(request));

    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect((err as APIError).message).toContain('no scripted reply');
    expect(server.requests).toHaveLength(1);
  });
});

describe('faults in a stream', () => {
  it('an error event mid-stream rejects the stream with a plain APIError without status', async () => {
    const { server, client } = await setup();
    server.enqueue({ fault: 'error-event-mid-stream', content: [text('Partial answer')], errorType: 'overloaded_error' });

    const { blocks, final } = streamKeepingBlocks(client);
    const err = await rejectionOf(final);

    expect(blocks).toEqual([text('Partial answer')]);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err).not.toBeInstanceOf(Anthropic.InternalServerError);
    const apiError = err as APIError;
    expect(apiError.status).toBeUndefined();
    expect(apiError.type).toBe('overloaded_error');
    expect(apiError.error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('a socket reset mid-stream rejects with AnthropicError "terminated" (not an APIConnectionError)', async () => {
    const { server, client } = await setup();
    server.enqueue({ fault: 'reset-mid-stream', content: [text('one'), bashCall], afterBlocks: 1, midBlock: true });

    const { blocks, final } = streamKeepingBlocks(client);
    const err = await rejectionOf(final);

    expect(blocks).toEqual([text('one')]);
    expect(err).toBeInstanceOf(Anthropic.AnthropicError);
    expect(err).not.toBeInstanceOf(Anthropic.APIError);
    expect((err as Error).message).toBe('terminated');
  });

  it('a socket reset before a non-streamed answer is an APIConnectionError', async () => {
    const { server, client } = await setup();
    server.enqueue({ fault: 'reset-mid-stream' });

    const err = await rejectionOf(client.messages.create(request));

    expect(err).toBeInstanceOf(Anthropic.APIConnectionError);
  });

  it('a malformed SSE data line rejects with AnthropicError caused by a SyntaxError', async () => {
    const { server, client } = await setup();
    server.enqueue({ fault: 'malformed-sse', content: [text('fine so far')] });

    const err = await rejectionOf(client.messages.stream(request).finalMessage());

    expect(err).toBeInstanceOf(Anthropic.AnthropicError);
    expect(err).not.toBeInstanceOf(Anthropic.APIError);
    expect((err as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it('a stall keeps the stream pending (the SDK timeout does not cover the body) until aborted', async () => {
    const { server } = await setup();
    // The timeout must cover the headers (a loaded machine takes tens of ms to them: 20 ms failed there) and then be
    // outlived by the wait below: it does not cover the body.
    const client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0, timeout: 1000, logLevel: 'off' });
    server.enqueue({ fault: 'stall', content: [text('waiting')] });

    const stream = client.messages.stream(request);
    const firstBlock = new Promise((resolve) => stream.once('contentBlock', resolve));
    const outcome = stream.finalMessage().then(
      () => 'resolved',
      (err: unknown) => err,
    );
    await firstBlock;
    const early = await Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve('pending'), 1300))]);
    expect(early).toBe('pending');

    stream.abort();
    expect(await outcome).toBeInstanceOf(Anthropic.APIUserAbortError);
  });

  it('close() ends a stalled stream instead of hanging', async () => {
    const { server, client } = await setup();
    server.enqueue({ fault: 'stall', content: [text('waiting')] });

    const stream = client.messages.stream(request);
    const outcome = stream.finalMessage().then(
      () => 'resolved',
      (err: unknown) => err,
    );
    await new Promise((resolve) => stream.once('contentBlock', resolve));
    await server.close();

    expect(await outcome).toBeInstanceOf(Anthropic.AnthropicError);
  });
});

describe('max_tokens cut inside a tool_use', () => {
  const cutReply = { content: [text('Writing it.'), bashCall], stop_reason: 'max_tokens' as const, cutInsideLastBlock: true };

  it('ends the SDK stream with stop_reason max_tokens and a partially parsed, never-stopped tool_use', async () => {
    const { server, client } = await setup();
    server.enqueue(cutReply);

    const { blocks, final } = streamKeepingBlocks(client);
    const message = await final;

    expect(message.stop_reason).toBe('max_tokens');
    expect(blocks).toEqual([text('Writing it.')]);
    const cut = message.content[1];
    expect(cut).toMatchObject({ type: 'tool_use', id: 'toolu_01', name: 'bash' });
    // The SDK's partial-JSON parse of the prefix `{"command":"ls -la /tmp","ti`: it keeps
    // complete members and drops the unfinished one, so the input looks plausible but is incomplete.
    expect((cut as Anthropic.ToolUseBlock).input).toEqual({ command: 'ls -la /tmp' });
  });

  it('puts a strict prefix of the input JSON on the wire and no content_block_stop for the cut block', async () => {
    const { server } = await setup();
    server.enqueue(cutReply);

    const { frames } = await rawStream(server.url, request);

    const partial = frames
      .filter((f) => f.event === 'content_block_delta' && (f.data as AnyJson).index === 1)
      .map((f) => (f.data as AnyJson).delta.partial_json as string)
      .join('');
    const full = JSON.stringify((bashCall as AnyJson).input);
    expect(full.startsWith(partial)).toBe(true);
    expect(partial.length).toBeLessThan(full.length);
    expect(frames.filter((f) => f.event === 'content_block_stop').map((f) => (f.data as AnyJson).index)).toEqual([0]);
    expect(frames.slice(-2).map((f) => f.event)).toEqual(['message_delta', 'message_stop']);
    expect((frames.at(-2)!.data as AnyJson).delta.stop_reason).toBe('max_tokens');
  });
});

describe('recording and validation', () => {
  it('records method, path, headers, body and whether it was streamed', async () => {
    const { server, client } = await setup();
    server.enqueue({ content: [text('a')], stop_reason: 'end_turn' }, { content: [text('b')], stop_reason: 'end_turn' });

    await client.messages.create({ ...request, system: 'be brief' });
    await client.messages.stream(request).finalMessage();

    const [plain, streamed] = server.requests;
    expect(plain).toMatchObject({ method: 'POST', path: '/v1/messages', streamed: false, body: { ...request, system: 'be brief' } });
    // SDK 1.16 sends `apiKey` as `Authorization: Bearer`, not `x-api-key`.
    expect(plain?.headers.authorization).toBe('Bearer test');
    expect(plain?.headers['anthropic-version']).toBeTruthy();
    expect(streamed).toMatchObject({ streamed: true, body: { ...request, stream: true } });
  });

  it('answers 400 with the validator message, records the violation and keeps the step queued', async () => {
    const { server, client } = await setup({
      validate: (body) => {
        if (body.messages.length === 0) throw new Error('messages: at least one message is required');
      },
    });
    server.enqueue({ content: [text('valid')], stop_reason: 'end_turn' });

    const err = await rejectionOf(client.messages.create({ ...request, messages: [] }));

    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as APIError).message).toContain('messages: at least one message is required');
    expect(server.violations).toEqual(['messages: at least one message is required']);
    expect(server.pending).toBe(1);

    const message = await client.messages.create(request);
    expect(message.content).toEqual([text('valid')]);
    expect(server.violations).toHaveLength(1);
  });
});

describe("extended thinking's rules (./thinkingContract.ts)", () => {
  const thought: ScriptedBlock = { type: 'thinking', thinking: 'I should list them.', signature: 'sig_1' };
  const redacted: ScriptedBlock = { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va' };
  const call: ScriptedBlock = { type: 'tool_use', id: 'toolu_t', name: 'bash', input: { command: 'ls' } };
  const loop = (assistant: unknown[]) => ({
    ...thinkingRequest,
    messages: [...thinkingRequest.messages, { role: 'assistant', content: assistant }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_t', content: 'a.txt' }] }],
  }) as Anthropic.MessageCreateParamsNonStreaming;

  it('streams redacted_thinking whole in its content_block_start, with no delta', async () => {
    const { server } = await setup();
    server.enqueue({ content: [redacted, text('Done.')], stop_reason: 'end_turn' });
    const { frames } = await rawStream(server.url, thinkingRequest);
    expect(frames.filter((f) => f.event === 'content_block_start').map((f) => (f.data as AnyJson).content_block)).toEqual([redacted, { type: 'text', text: '' }]);
    expect(frames.filter((f) => f.event === 'content_block_delta' && (f.data as AnyJson).index === 0)).toEqual([]);
  });

  it('a thinking reply answers only a request that asked for thinking; budget and temperature as the API checks them', async () => {
    const { server, client } = await setup();
    server.enqueue({ content: [thought, text('Hi')], stop_reason: 'end_turn' });
    expect(((await rejectionOf(client.messages.create(request))) as APIError).message).toContain('answers only a request with `thinking`');
    for (const [body, says] of [
      [{ ...thinkingRequest, thinking: { type: 'enabled', budget_tokens: 1000 } }, 'greater than or equal to 1024'],
      [{ ...thinkingRequest, max_tokens: 1024 }, 'must be greater than `thinking.budget_tokens`'],
      [{ ...thinkingRequest, temperature: 0.5 }, '`temperature` may only be set to 1'],
    ] as const) expect(((await rejectionOf(client.messages.create(body as Anthropic.MessageCreateParamsNonStreaming))) as APIError).message).toContain(says);
    expect(server.violations).toHaveLength(4);
  });

  it('the next request of a tool loop must carry the thinking blocks back first and unchanged', async () => {
    const { server, client } = await setup();
    server.enqueue({ content: [thought, redacted, call], stop_reason: 'tool_use' });
    await client.messages.create(thinkingRequest);
    const refused = async (assistant: unknown[]) => ((await rejectionOf(client.messages.create(loop(assistant)))) as APIError).message;
    expect(await refused([call])).toContain('must start with a thinking block');
    expect(await refused([thought, call])).toContain('must start with a thinking block');
    expect(await refused([{ ...thought, signature: 'sig_2' }, redacted, call])).toContain('Invalid `signature` in `thinking` block');
    expect(await refused([{ ...thought, thinking: 'changed' }, redacted, call])).toContain('Invalid `signature`');
    expect(await refused([redacted, thought, call])).toContain('cannot be modified');
    expect(server.violations).toHaveLength(5);
    server.enqueue({ content: [text('Done.')], stop_reason: 'end_turn' });
    expect((await client.messages.create(loop([thought, redacted, call]))).content).toEqual([text('Done.')]);
  });
});
