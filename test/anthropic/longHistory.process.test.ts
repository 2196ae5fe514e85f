/**
 * The history invariant at turn 10,000: the model service checks before every send only what was appended since its
 * last check (history/validate.ts), so what it must still know of turn 1 is the tool_use ids, and a history that
 * breaks the invariant far back is refused there as at turn 1, before anything is sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../../src/anthropic/call.js';
import { AppendLog } from '../../src/core/appendLog.js';
import type { MessageParam } from '../../src/core/messages.js';
import type { ModelCall } from '../../src/core/model.js';
import { startMessagesServer, type MessagesServer } from '../support/messagesServer.js';

const TURNS = 10_000;
const use = (id: string) => ({ type: 'tool_use' as const, id, name: 'noop', input: {} });
const result = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'ok' });

let server: MessagesServer;
let model: ModelCall;
let log: AppendLog<MessageParam>;
beforeEach(async () => {
  server = await startMessagesServer();
  model = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url });
  log = AppendLog.of<MessageParam>([{ role: 'user', content: 'go' }]);
});
afterEach(async () => server.close());

const send = (messages: AppendLog<MessageParam>, turnCount: number) =>
  model({ request: { model: 'claude-test', max_tokens: 100, messages: messages.shared() }, turnCount, onToolUse: () => {} }, new AbortController().signal);

/** The run's history grown to `TURNS` turns, the model service sending it at every 1,000th and checking it at every turn. */
async function grow(): Promise<void> {
  const { assertValidHistory } = await import('../../src/history/validate.js');
  for (let t = 1; t <= TURNS; t++) {
    log = log.append({ role: 'assistant', content: [use(`toolu_${t}`)] }, { role: 'user', content: [result(`toolu_${t}`)] });
    if (t % 1000 === 0) {
      server.enqueue({ content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' });
      await send(log, t);
    } else assertValidHistory(log.shared()); // what the model service does first, on the same array
  }
  expect(server.requests).toHaveLength(TURNS / 1000);
  expect(server.requests.at(-1)?.body?.messages).toHaveLength(2 * TURNS + 1);
}

describe(`the model service at turn ${TURNS.toLocaleString('en')}`, () => {
  it.each([
    ['repeats the tool_use id of turn 1', [{ role: 'assistant', content: [use('toolu_1')] }, { role: 'user', content: [result('toolu_1')] }], /repeats tool_use id toolu_1/],
    ['answers a tool_use of turn 5', [{ role: 'assistant', content: [{ type: 'text', text: 'hm' }] }, { role: 'user', content: [result('toolu_5')] }], /unexpected tool_use_id toolu_5/],
    ['has two user messages in a row', [{ role: 'user', content: [{ type: 'text', text: 'again' }] }], /same role as the message before it/],
  ] as Array<[string, MessageParam[], RegExp]>)('refuses a history that %s, and sends nothing', async (_, appended, problem) => {
    await grow();
    const sent = server.requests.length;
    await expect(send(log.append(...appended), TURNS + 1)).rejects.toMatchObject({ kind: 'invalid_request', message: expect.stringMatching(problem) });
    expect(server.requests).toHaveLength(sent);
    // The valid history goes on being sent.
    server.enqueue({ content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' });
    await send(log, TURNS + 1);
    expect(server.requests).toHaveLength(sent + 1);
  });
});
