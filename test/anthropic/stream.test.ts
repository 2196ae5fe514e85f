import type Anthropic from '@anthropic-ai/sdk';
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
      { request, turnCount: 1, onToolUse: (b) => ready.push(b), onText: (t) => texts.push(t) },
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
  const start = (index: number, block: Anthropic.ContentBlock): Anthropic.RawMessageStreamEvent =>
    ({ type: 'content_block_start', index, content_block: block }) as Anthropic.RawMessageStreamEvent;
  const delta = (index: number, d: Record<string, unknown>): Anthropic.RawMessageStreamEvent =>
    ({ type: 'content_block_delta', index, delta: d }) as unknown as Anthropic.RawMessageStreamEvent;
  const stop = (index: number): Anthropic.RawMessageStreamEvent => ({ type: 'content_block_stop', index });

  it('a tool_use with no input deltas keeps its empty input', () => {
    const b = new ReplyBuilder();
    b.add(start(0, { type: 'tool_use', id: 't', name: 'noop', input: {} } as Anthropic.ContentBlock));
    expect(b.add(stop(0))).toEqual({ type: 'tool_use', id: 't', name: 'noop', input: {} });
  });

  it('tool input that is not JSON is a protocol error naming the block', () => {
    const b = new ReplyBuilder();
    b.add(start(1, { type: 'tool_use', id: 't', name: 'bash', input: {} } as Anthropic.ContentBlock));
    b.add(delta(1, { type: 'input_json_delta', partial_json: '{"command": "ls' }));
    expect(() => b.add(stop(1))).toThrow(StreamProtocolError);
    expect(() => new ReplyBuilder().add(delta(0, { type: 'text_delta', text: 'x' }))).toThrow(/block 0, which is not open/);
  });

  it('usage: the last count of each kind wins (message_delta repeats them cumulatively)', () => {
    const b = new ReplyBuilder();
    b.add({ type: 'message_start', message: { usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 3 } } } as Anthropic.RawMessageStreamEvent);
    b.add({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9, input_tokens: null } } as unknown as Anthropic.RawMessageStreamEvent);
    expect(b.usage).toEqual({ input_tokens: 10, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 3 });
    expect(b.stopReason).toBe('end_turn');
    expect(b.stopped).toBe(false);
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
