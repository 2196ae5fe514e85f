import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { cachedMessageIndexes, countCacheBreakpoints, MAX_CACHE_BREAKPOINTS, messageCacheMarks, stripCacheControl, withCacheBreakpoints } from '../../src/anthropic/cache.js';
import { buildRequest, initialContext } from '../../src/machine/context.js';
import type { MessageParam } from '../../src/core/messages.js';
import type { ModelRequest } from '../../src/core/model.js';
import { startSession } from '../../src/transcript/recorder.js';
import { defaultTools } from '../../src/run/defaultTools.js';
import { runAgent } from '../../src/run/runAgent.js';
import { findSession, readTranscript } from '../../src/transcript/store.js';
import { answerFromResults, bashUse, startCheckedServer } from '../support/agentServer.js';
import type { MessagesServer } from '../support/messagesServer.js';

const tool = { name: 'bash', description: 'run', input_schema: { type: 'object' as const } };
const user = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });
const base = (messages: MessageParam[], extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'm',
  max_tokens: 100,
  system: 'Be brief.',
  tools: [tool],
  messages,
  ...extra,
});

describe('cache breakpoints', () => {
  it('mark the system prompt, the last message and the end of the previous request', () => {
    const messages = [user('a'), assistant('b'), user('c'), assistant('d'), user('e')];
    const request = withCacheBreakpoints(base(messages));
    expect(request.system).toEqual([{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }]);
    expect(request.tools).toEqual([tool]);
    expect(messageCacheMarks(request.messages)).toEqual([
      [2, 0],
      [4, 0],
    ]);
    expect(countCacheBreakpoints(request)).toBe(3);
    expect(historyProblems(request.messages)).toEqual([]);
  });

  it('mark the last tool when there is no system prompt, and only the last message on the first turn', () => {
    const request = withCacheBreakpoints(base([user('a')], { system: '' }));
    expect(request.tools?.[0]).toEqual({ ...tool, cache_control: { type: 'ephemeral' } });
    expect(messageCacheMarks(request.messages)).toEqual([[0, 0]]);
  });

  it('never change the caller’s messages, and strip back to exactly the request without caching', () => {
    const messages = [user('a'), assistant('b'), user('c')];
    const frozen = structuredClone(messages);
    const plain = base(messages);
    const cached = withCacheBreakpoints(plain);
    expect(messages).toEqual(frozen);
    expect(cached.messages[1]).toBe(messages[1]); // untouched messages are shared, not copied
    expect(stripCacheControl(cached)).toEqual(plain);
  });

  it('skip blocks that cannot carry cache_control (empty text) and leave string content alone', () => {
    const trailingBlank: MessageParam = {
      role: 'user',
      content: [
        { type: 'text', text: 'x' },
        { type: 'text', text: '  ' },
      ],
    };
    expect(messageCacheMarks(withCacheBreakpoints(base([trailingBlank])).messages)).toEqual([[0, 0]]);
    const asString: MessageParam = { role: 'user', content: 'plain' };
    expect(withCacheBreakpoints(base([asString])).messages[0]).toBe(asString);
    expect(cachedMessageIndexes([])).toEqual([]);
  });

  it('the body sent (buildRequest + withCacheBreakpoints) stays within the API limit of 4 for any history length', () => {
    for (let n = 1; n <= 9; n += 2) {
      const messages = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? user(`u${i}`) : assistant(`a${i}`)));
      const request = withCacheBreakpoints(buildRequest(initialContext({ messages, config: { model: 'm', system: 'S', tools: [tool] } })));
      expect(countCacheBreakpoints(request)).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
      expect(historyProblems(request.messages)).toEqual([]);
    }
  });
});

describe('a multi-turn run against the local Messages API server', () => {
  let server: MessagesServer | undefined;
  let home: string | undefined;
  afterEach(async () => {
    await server?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('caches the conversation turn to turn: each request reads what the previous one wrote', async () => {
    server = await startCheckedServer();
    home = mkdtempSync(join(tmpdir(), 'agentloop-cache-'));
    const usage = (read: number, write: number) => ({ input_tokens: 20, output_tokens: 10, cache_read_input_tokens: read, cache_creation_input_tokens: write });
    server.enqueue(
      { content: [bashUse('toolu_1', 'echo one')], stop_reason: 'tool_use', usage: usage(0, 900) },
      { content: [bashUse('toolu_2', 'echo two'), bashUse('toolu_3', 'echo three')], stop_reason: 'tool_use', usage: usage(900, 150) },
      { content: [{ type: 'text', text: 'Looking.' }, bashUse('toolu_4', 'echo four')], stop_reason: 'tool_use', usage: usage(1050, 120) },
      answerFromResults,
    );
    const recorder = startSession(home, { cwd: home, model: 'claude-test' });
    const result = await runAgent('echo some words', {
      model: 'claude-test',
      client: { apiKey: 'sk-test', baseURL: server.url },
      cwd: home,
      tools: defaultTools({ cwd: home }),
      onEvent: recorder.onEvent,
    });
    recorder.finish(result);
    recorder.close();
    expect(result.context.exitReason).toBe('completed');
    expect(server.violations).toEqual([]);

    const bodies = server.requests.map((r) => r.body as unknown as ModelRequest);
    expect(bodies).toHaveLength(4);
    bodies.forEach((body, i) => {
      expect(historyProblems(body.messages)).toEqual([]);
      expect(countCacheBreakpoints(body)).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
      // The stable prefix: the system prompt (after the tools) is a breakpoint in every request.
      expect(Array.isArray(body.system) && body.system.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      const last = body.messages.length - 1;
      const lastMessage = body.messages[last] as MessageParam;
      const lastBlock = (lastMessage.content as Array<{ cache_control?: unknown }>).at(-1);
      expect(lastBlock?.cache_control).toEqual({ type: 'ephemeral' });
      if (i === 0) return;
      // The previous request's last message is still marked, so its cache entry is read.
      const previous = bodies[i - 1] as ModelRequest;
      const end = previous.messages.length - 1;
      expect(messageCacheMarks(body.messages).map(([m]) => m)).toEqual([end, last]);
      // And the conversation so far is a true prefix of this request.
      expect(stripCacheControl(body).messages.slice(0, end + 1)).toEqual(stripCacheControl(previous).messages);
    });

    // Usage per turn and in total: in the result and in the transcript.
    expect(result.context.turnUsage.map((u) => u.cache_read_input_tokens)).toEqual([0, 900, 1050, expect.any(Number)]);
    expect(result.context.usage.cache_creation_input_tokens).toBeGreaterThanOrEqual(1170);
    const records = readTranscript(findSession(home, recorder.id)).records;
    const usageRecords = records.filter((r) => r.type === 'usage');
    expect(usageRecords.map((r) => r.type === 'usage' && r.turnCount)).toEqual([1, 2, 3, 4]);
    expect(usageRecords.at(-1)).toMatchObject({ total: result.context.usage });
    expect(records.filter((r) => r.type === 'request').map((r) => r.type === 'request' && r.messageCacheMarks.length)).toEqual([1, 2, 2, 2]);
  });
});
