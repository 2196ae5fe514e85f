import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheBreakpointsOverTime, withCacheBreakpoints } from '../../src/anthropic/cache.js';
import { createAnthropicModel } from '../../src/anthropic/call.js';
import { AppendLog } from '../../src/core/appendLog.js';
import type { RunEvent } from '../../src/core/events.js';
import type { MessageParam } from '../../src/core/messages.js';
import type { ModelRequest } from '../../src/core/model.js';
import { runAgent } from '../../src/run/runAgent.js';
import { startMessagesServer, type MessagesServer } from '../support/messagesServer.js';

const tool = { name: 'noop', description: 'does nothing', input_schema: { type: 'object' as const } };
const request = (messages: MessageParam[]): ModelRequest => ({ model: 'm', max_tokens: 100, system: 'S', tools: [tool], messages });
const turn = (id: string): MessageParam[] => [
  { role: 'assistant', content: [{ type: 'text', text: 'on it' }, { type: 'tool_use', id, name: 'noop', input: {} }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
];

describe('the model service marks a growing history without copying it each turn (cacheBreakpointsOverTime)', () => {
  it('sends exactly withCacheBreakpoints(request), whatever two histories do in turn, and changes neither', () => {
    type Step = { history: 0 | 1; op: 'grow' | 'again' | 'replaceLast' | 'fresh' };
    const step = fc.record({ history: fc.constantFrom<0 | 1>(0, 1), op: fc.constantFrom<Step['op']>('grow', 'grow', 'again', 'replaceLast', 'fresh') });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const prepare = cacheBreakpointsOverTime();
        const logs = [AppendLog.of<MessageParam>([{ role: 'user', content: [{ type: 'text', text: 'a' }] }]), AppendLog.of<MessageParam>([{ role: 'user', content: 'b' }])];
        let n = 0;
        for (const { history, op } of steps) {
          let log = logs[history] as AppendLog<MessageParam>;
          if (op === 'grow') log = log.append(...turn(`toolu_${n++}`));
          if (op === 'replaceLast') log = log.withLast({ role: 'user', content: [{ type: 'text', text: `replaced ${n++}` }] });
          logs[history] = log;
          // `fresh`: a new array of the same messages, as a transformContext hook gives.
          const messages = op === 'fresh' ? log.toArray() : log.shared();
          const before = JSON.stringify(messages.slice(0, log.length));
          const sent = prepare(request(messages));
          expect(JSON.stringify(sent)).toBe(JSON.stringify(withCacheBreakpoints(request(log.toArray()))));
          expect(JSON.stringify(messages.slice(0, log.length))).toBe(before);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('a run through the real SDK against the local Messages API server', () => {
  let server: MessagesServer | undefined;
  afterEach(async () => server?.close());

  it('sends one array per history, grown turn by turn, each time as withCacheBreakpoints would make it', async () => {
    server = await startMessagesServer();
    const replies = [1, 2, 3, 4].map((i) => ({ content: [{ type: 'tool_use' as const, id: `toolu_${i}`, name: 'noop', input: {} }], stop_reason: 'tool_use' as const }));
    server.enqueue(...replies, { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' });
    const sent: Array<{ array: unknown; body: string }> = [];
    const onEvent = (event: RunEvent) => {
      if (event.type === 'request') sent.push({ array: event.body.messages, body: JSON.stringify(event.body.messages.slice(0, event.messageCount)) });
    };
    const run = await runAgent('go', {
      model: 'claude-test',
      modelCall: createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url }),
      tools: [{ ...tool, inputSchema: tool.input_schema, run: async () => ({ content: 'ok', isError: false }) }],
      onEvent,
    });
    expect(run.context.exitReason).toBe('completed');
    expect(server.requests).toHaveLength(5);
    // What each listener was told is what the server received, marks included.
    expect(sent.map((s) => s.body)).toEqual(server.requests.map((r) => JSON.stringify(r.body?.messages)));
    for (const [i, r] of server.requests.entries()) {
      const history = run.context.messages.slice(0, r.body?.messages.length);
      expect(r.body?.messages, `request ${i}`).toEqual(withCacheBreakpoints(request(history)).messages);
    }
    // One array for the run, grown (the old model service copied the history into a new one every turn).
    expect(new Set(sent.map((s) => s.array)).size).toBe(1);
    // The history itself carries no mark.
    expect(JSON.stringify(run.context.messages)).not.toContain('cache_control');
  });
});
