import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../../src/anthropic/call.js';
import { ReplyBuilder, StreamProtocolError } from '../../src/anthropic/stream.js';
import type { ModelRequest } from '../../src/core/model.js';
import type { ToolUseBlock } from '../../src/core/messages.js';
import { ModelError } from '../../src/core/model.js';
import { startCheckedServer } from '../support/agentServer.js';
import type { MessagesServer } from '../support/messagesServer.js';

let server: MessagesServer;
beforeEach(async () => {
  server = await startCheckedServer();
});
afterEach(async () => {
  await server.close();
});

const request: ModelRequest = { model: 'claude-test', max_tokens: 1000, messages: [{ role: 'user', content: 'go' }] };

describe('the Anthropic model call builds the reply from the raw stream', () => {
  it('keeps thinking with its signature, text, and tool input split over many JSON deltas', async () => {
    const input = { command: 'printf "%s\\n" {1..3} | sort -r', note: 'ünïcode ✓', nested: { list: [1, 2, 3] } };
    server.enqueue({
      content: [
        { type: 'thinking', thinking: 'I should list things in reverse.', signature: 'sig-abc' },
        { type: 'text', text: 'Running a command now.' },
        { type: 'tool_use', id: 'toolu_1', name: 'bash', input },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 42, output_tokens: 17, cache_read_input_tokens: 5 },
    });
    const texts: string[] = [];
    const ready: ToolUseBlock[] = [];
    const model = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url, promptCaching: false });
    const reply = await model(
      { request: { ...request, max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 } }, turnCount: 1, onToolUse: (b) => ready.push(b), onText: (t) => texts.push(t) },
      new AbortController().signal,
    );
    expect(reply.content).toEqual([
      { type: 'thinking', thinking: 'I should list things in reverse.', signature: 'sig-abc' },
      { type: 'text', text: 'Running a command now.' },
      { type: 'tool_use', id: 'toolu_1', name: 'bash', input },
    ]);
    expect(texts.length).toBeGreaterThan(1); // delivered piece by piece
    expect(texts.join('')).toBe('Running a command now.');
    expect(ready).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'bash', input }]);
    expect(reply.stopReason).toBe('tool_use');
    expect(reply.usage).toEqual({ input_tokens: 42, output_tokens: 17, cache_creation_input_tokens: 0, cache_read_input_tokens: 5 });
    expect(reply.droppedIncompleteBlock).toBe(false);
  });

  it('leaves out a tool_use cut by max_tokens and says so', async () => {
    server.enqueue({
      content: [
        { type: 'text', text: 'About to run it.' },
        { type: 'tool_use', id: 'toolu_cut', name: 'bash', input: { command: 'echo this input is cut half way' } },
      ],
      stop_reason: 'max_tokens',
      cutInsideLastBlock: true,
    });
    const ready: ToolUseBlock[] = [];
    const model = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url });
    const reply = await model({ request, turnCount: 1, onToolUse: (b) => ready.push(b) }, new AbortController().signal);
    expect(reply.content).toEqual([{ type: 'text', text: 'About to run it.' }]);
    expect(reply.droppedIncompleteBlock).toBe(true);
    expect(reply.stopReason).toBe('max_tokens');
    expect(ready).toEqual([]);
  });

  it('a slow stream that keeps sending is not taken for a stalled one, however long it lasts in all', async () => {
    // 19 frames 80 ms apart against a 1 s idle timeout: each gap is a twelfth of the timeout (room
    // for a loaded machine), the whole reply lasts longer than the timeout.
    const pieces = ['slow but ', 'steady, ', 'piece by piece'];
    server.enqueue({ content: pieces.map((text) => ({ type: 'text' as const, text })), stop_reason: 'end_turn', delayMs: 80 });
    const model = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url, idleTimeoutMs: 1000 });
    const started = performance.now();
    const reply = await model({ request, turnCount: 1, onToolUse: () => {} }, new AbortController().signal);
    expect(performance.now() - started).toBeGreaterThan(1000);
    expect(reply.content).toEqual(pieces.map((text) => ({ type: 'text', text })));
  });

  it('sends nothing when the signal is already aborted', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'never' }], stop_reason: 'end_turn' });
    const model = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url });
    await expect(model({ request, turnCount: 1, onToolUse: () => {} }, AbortSignal.abort())).rejects.toThrow();
    expect(server.requests).toHaveLength(0);
  });

  it('rejects with the AbortSignal’s reason when aborted mid-stream, not with a reply', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'a long answer '.repeat(20) }], stop_reason: 'end_turn', delayMs: 30 });
    const controller = new AbortController();
    const model = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url });
    const reason = new Error('stop now');
    const call = model({ request, turnCount: 1, onToolUse: () => {}, onText: () => controller.abort(reason) }, controller.signal);
    await expect(call).rejects.toBe(reason);
  });
});

describe('ReplyBuilder', () => {
  const start = (index: number, block: Record<string, unknown>) => ({ type: 'content_block_start', index, content_block: block });
  const delta = (index: number, d: Record<string, unknown>) => ({ type: 'content_block_delta', index, delta: d });
  const stop = (index: number) => ({ type: 'content_block_stop', index });
  const messageStart = (usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 1 }) => ({
    type: 'message_start',
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], usage },
  });
  const messageDelta = (usage: Record<string, unknown> = { output_tokens: 5 }, stop_reason: unknown = 'end_turn') => ({ type: 'message_delta', delta: { stop_reason }, usage });
  const messageStop = { type: 'message_stop' };
  const toolStart = (index: number, id = 't') => start(index, { type: 'tool_use', id, name: 'bash', input: {} });
  /** Feeds the events in order; returns what each gave back. */
  const feed = (events: unknown[], builder = new ReplyBuilder()) => events.map((e) => builder.add(e));

  it('a tool_use with no input deltas keeps its empty input', () => {
    const b = new ReplyBuilder();
    expect(feed([messageStart(), toolStart(0), stop(0)], b)).toEqual([undefined, undefined, { type: 'tool_use', id: 't', name: 'bash', input: {} }]);
  });

  it('tool input that is not JSON is a protocol error naming the block', () => {
    const b = new ReplyBuilder();
    feed([messageStart(), start(0, { type: 'text', text: '' }), stop(0), toolStart(1), delta(1, { type: 'input_json_delta', partial_json: '{"command": "ls' })], b);
    expect(() => b.add(stop(1))).toThrow(StreamProtocolError);
    expect(() => b.add(stop(1))).toThrow(/block 1/);
  });

  it('usage: the last count of each kind wins (message_delta repeats them cumulatively); null is no count', () => {
    const b = new ReplyBuilder();
    feed([messageStart({ input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 3 }), messageDelta({ output_tokens: 9, input_tokens: null })], b);
    expect(b.usage).toEqual({ input_tokens: 10, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 3 });
    expect(b.stopReason).toBe('end_turn');
    expect(b.stopped).toBe(false);
    b.add(messageStop);
    expect(b.stopped).toBe(true);
  });

  it('leaves out text blocks of nothing but white space (the API refuses them in a request), keeps the rest', () => {
    const b = new ReplyBuilder();
    feed([messageStart(), start(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta', text: ' \n ' }), stop(0), start(1, { type: 'text', text: '' }), stop(1), toolStart(2), stop(2), messageDelta(), messageStop], b);
    expect(b.content()).toEqual([{ type: 'tool_use', id: 't', name: 'bash', input: {} }]);
  });

  it('takes pings between message_start and message_stop, citations on text, and event types it does not know', () => {
    const b = new ReplyBuilder();
    feed([messageStart(), { type: 'ping' }, start(0, { type: 'text', text: '' }), delta(0, { type: 'citations_delta', citation: {} }), { type: 'ping' }, { type: 'some_future_event' }, delta(0, { type: 'text_delta', text: 'hi' }), stop(0), messageDelta(), { type: 'ping' }, messageStop], b);
    expect(b.content()).toEqual([{ type: 'text', text: 'hi' }]);
  });

  const valid = [messageStart(), toolStart(0), delta(0, { type: 'input_json_delta', partial_json: '{}' }), stop(0), messageDelta(), messageStop];
  it.each<[string, unknown[], RegExp]>([
    ['an event before message_start', [toolStart(0)], /before message_start/],
    ['a ping before message_start', [{ type: 'ping' }], /before message_start/],
    ['a second message_start', [messageStart(), messageStart()], /"message_start" between message_start and message_delta/],
    ['a block after message_stop', [...valid, toolStart(1, 'late')], /after message_stop/],
    ['a ping after message_stop', [...valid, { type: 'ping' }], /after message_stop/],
    ['a block after message_delta', [messageStart(), messageDelta(), toolStart(0)], /between message_delta and message_stop/],
    ['a second message_delta', [messageStart(), messageDelta(), messageDelta()], /"message_delta" between message_delta/],
    ['a second content_block_start for a stopped index', [messageStart(), toolStart(0), stop(0), toolStart(0, 'again')], /a second content_block_start for block 0/],
    ['a second content_block_start for an open index', [messageStart(), toolStart(0), toolStart(0, 'again')], /block 0 starts while block 0 is open/],
    ['a block while another is open', [messageStart(), toolStart(0), toolStart(1, 'other')], /block 1 starts while block 0 is open/],
    ['indexes out of order', [messageStart(), toolStart(1)], /block 1 starts before block 0/],
    ['a delta for a block not started', [messageStart(), delta(0, { type: 'text_delta', text: 'x' })], /block 0, which is not started/],
    ['a delta for a stopped block', [messageStart(), toolStart(0), stop(0), delta(0, { type: 'input_json_delta', partial_json: '1' })], /block 0, which is already stopped/],
    ['a stop for a stopped block', [messageStart(), toolStart(0), stop(0), stop(0)], /content_block_stop for block 0, which is already stopped/],
    ['text_delta on a tool_use', [messageStart(), toolStart(0), delta(0, { type: 'text_delta', text: 'x' })], /a text_delta for block 0, which is a tool_use block/],
    ['input_json_delta on text', [messageStart(), start(0, { type: 'text', text: '' }), delta(0, { type: 'input_json_delta', partial_json: '{}' })], /input_json_delta for block 0, which is a text block/],
    ['thinking_delta on text', [messageStart(), start(0, { type: 'text', text: '' }), delta(0, { type: 'thinking_delta', thinking: 'x' })], /which is a text block/],
    ['signature_delta on a tool_use', [messageStart(), toolStart(0), delta(0, { type: 'signature_delta', signature: 's' })], /which is a tool_use block/],
    ['a delta of an unknown kind', [messageStart(), start(0, { type: 'text', text: '' }), delta(0, { type: 'mystery_delta' })], /mystery_delta/],
    ['a text_delta without its text', [messageStart(), start(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta' })], /text that is not a string/],
    ['a tool_use without an input object', [messageStart(), start(0, { type: 'tool_use', id: 't', name: 'bash' })], /no input object/],
    ['a tool_use whose id is a number', [messageStart(), start(0, { type: 'tool_use', id: 7, name: 'bash', input: {} })], /id that is not a string/],
    ['an index that is not a block number', [messageStart(), start(-1, { type: 'text', text: '' })], /not a block number/],
    ['message_start carrying content', [{ type: 'message_start', message: { content: [{ type: 'text', text: 'x' }] } }], /carries content/],
    ['an event that is no object', [messageStart(), 'ping'], /not an object/],
    ['a stop_reason that is not a string', [messageStart(), messageDelta({}, 5)], /stop_reason/],
    ['a negative token count', [messageStart({ input_tokens: -5 })], /usage.input_tokens is -5/],
    ['a fractional token count', [messageStart(), messageDelta({ output_tokens: 2.5 })], /usage.output_tokens is 2.5/],
    ['an absurd token count', [messageStart({ input_tokens: 1e295 })], /usage.input_tokens is 1e\+295/],
    ['a token count that is a string', [messageStart({ cache_read_input_tokens: '12' })], /usage.cache_read_input_tokens is "12"/],
  ])('%s is a protocol error', (_, events, message) => {
    const b = new ReplyBuilder();
    const at = events.length - 1;
    feed(events.slice(0, at), b); // all well up to the last event
    let thrown: unknown;
    try {
      b.add(events[at]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StreamProtocolError);
    expect((thrown as Error).message).toMatch(message);
  });

  it('a block left open when message_delta comes (cut by max_tokens) is left out and said so', () => {
    const b = new ReplyBuilder();
    feed([messageStart(), start(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta', text: 'ok' }), stop(0), toolStart(1), delta(1, { type: 'input_json_delta', partial_json: '{"comm' }), messageDelta({}, 'max_tokens'), messageStop], b);
    expect(b.content()).toEqual([{ type: 'text', text: 'ok' }]);
    expect(b.droppedIncompleteBlock()).toBe(true);
  });
});

describe('a broken stream is a retryable connection error', () => {
  it('a data line that is not JSON', async () => {
    server.enqueue({ fault: 'malformed-sse', content: [{ type: 'text', text: 'fine so far' }] });
    const model = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url });
    const error = await model({ request, turnCount: 1, onToolUse: () => {} }, new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).kind).toBe('connection');
    expect((error as ModelError).retryable).toBe(true);
    expect((error as ModelError).details.midStream).toBe(true);
  });
});
