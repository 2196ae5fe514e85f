/**
 * The `request` event's body never changes after it is emitted (issue 41), for a model call that sends the run's
 * shared log itself (the scripted model, a replay): run/actors.ts hands on a copy. On the old code the kept body was
 * the shared log, grown by every later turn (test/anthropic/requestEvent.process.test.ts: the SDK's model call).
 */
import { expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import type { ModelRequest } from '../../src/core/model.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';

const tool = { name: 'noop', description: 'does nothing', inputSchema: { type: 'object' as const }, run: async () => ({ content: 'ok', isError: false }) };

it('a model call that sends the shared log itself (the scripted model): each kept body has its own turn messages', async () => {
  const model = scriptedModel([
    reply.toolUse([{ id: 'toolu_1', name: 'noop', input: {} }]),
    reply.toolUse([{ id: 'toolu_2', name: 'noop', input: {} }]),
    reply.text('done'),
  ]);
  const kept: Array<{ body: ModelRequest; then: string }> = [];
  const onEvent = (event: RunEvent) => {
    if (event.type === 'request') kept.push({ body: event.body, then: JSON.stringify(event.body) });
  };
  await runAgent('go', { model: 'scripted', modelCall: model.call, tools: [tool], onEvent });
  expect(kept.map((k) => k.body.messages.length)).toEqual([1, 3, 5]);
  expect(kept.map((k) => JSON.stringify(k.body))).toEqual(kept.map((k) => k.then));
});
