/**
 * The `request` event carries what it says when it is emitted: the body as sent, which nothing changes after (issue
 * 41). A listener that keeps the body reads, after the run, what the server received, for the SDK's model call (its
 * own array, with the cache breakpoints) and with caching off (test/run/requestEvent.test.ts: the scripted model).
 * On the old code the model service grew one array per history and moved its breakpoints, and with caching off the
 * event handed the run's shared log itself: a kept body had later turns' messages and marks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../../src/anthropic/call.js';
import { withCacheBreakpoints } from '../../src/anthropic/cache.js';
import type { RunEvent } from '../../src/core/events.js';
import type { ModelRequest } from '../../src/core/model.js';
import { runAgent } from '../../src/run/runAgent.js';
import { startMessagesServer, type MessagesServer } from '../support/messagesServer.js';

const tool = { name: 'noop', description: 'does nothing', inputSchema: { type: 'object' as const }, run: async () => ({ content: 'ok', isError: false }) };

/** Each `request` event's body as the listener got it, and a copy of it taken then. */
function keeper() {
  const kept: Array<{ body: ModelRequest; then: string }> = [];
  const onEvent = (event: RunEvent) => {
    if (event.type === 'request') kept.push({ body: event.body, then: JSON.stringify(event.body) });
  };
  return { kept, onEvent };
}

describe('a kept request body is, after the run, what it was when emitted', () => {
  let server: MessagesServer | undefined;
  afterEach(async () => server?.close());

  for (const promptCaching of [true, false]) {
    it(`through the real SDK (prompt caching ${promptCaching ? 'on' : 'off'}): what the server received`, async () => {
      server = await startMessagesServer();
      const replies = [1, 2, 3, 4].map((i) => ({ content: [{ type: 'tool_use' as const, id: `toolu_${i}`, name: 'noop', input: {} }], stop_reason: 'tool_use' as const }));
      server.enqueue(...replies, { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' });
      const { kept, onEvent } = keeper();
      const run = await runAgent('go', {
        model: 'claude-test',
        modelCall: createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url, promptCaching }),
        tools: [tool],
        onEvent,
      });
      expect(run.context.exitReason).toBe('completed');
      expect(server.requests).toHaveLength(5);
      expect(kept.map((k) => JSON.stringify(k.body.messages))).toEqual(server.requests.map((r) => JSON.stringify(r.body?.messages)));
      expect(kept.map((k) => JSON.stringify(k.body))).toEqual(kept.map((k) => k.then));
      for (const [i, k] of kept.entries()) {
        const history = run.context.messages.slice(0, k.body.messages.length);
        if (promptCaching) expect(k.body.messages, `request ${i}`).toEqual(withCacheBreakpoints({ ...k.body, messages: history }).messages);
        else expect(k.body.messages, `request ${i}`).toEqual(history);
      }
      // The history itself carries no mark.
      expect(JSON.stringify(run.context.messages)).not.toContain('cache_control');
    });
  }
});
