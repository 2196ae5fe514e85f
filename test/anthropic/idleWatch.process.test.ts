/**
 * One timer watches every API stream of the process (anthropic/idleWatch.ts): among many streams at once, the one
 * that stalls is cut at its own bound, and only it; a stream with a short bound is cut at it even while streams
 * with a long one are watched.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../../src/anthropic/call.js';
import type { ModelRequest } from '../../src/core/model.js';
import { ModelError } from '../../src/core/model.js';
import { startCheckedServer } from '../support/agentServer.js';
import type { MessagesServer, Step } from '../support/messagesServer.js';

let server: MessagesServer;
beforeEach(async () => {
  server = await startCheckedServer();
});
afterEach(async () => {
  await server.close();
});

const request = (prompt: string): ModelRequest => ({ model: 'claude-test', max_tokens: 1000, messages: [{ role: 'user', content: prompt }] });
const steady: Step = { content: ['slow but ', 'steady, ', 'piece by piece'].map((text) => ({ type: 'text' as const, text })), stop_reason: 'end_turn', delayMs: 60 };
const stall: Step = { fault: 'stall', content: [{ type: 'text', text: 'Thinking...' }] };

/** The call's outcome: `done`, or the ModelError's kind, and when it settled (ms after the start). */
async function outcome(call: Promise<unknown>, started: number): Promise<{ end: string; afterMs: number }> {
  try {
    await call;
    return { end: 'done', afterMs: performance.now() - started };
  } catch (error) {
    return { end: error instanceof ModelError ? error.kind : String(error), afterMs: performance.now() - started };
  }
}

describe('one idle watch for all the streams of a process', () => {
  it('of 24 streams at once, the one that stalls is cut at its bound and the 23 that keep sending finish', async () => {
    const steps = Array.from({ length: 24 }, (_, i) => (i === 11 ? stall : steady));
    server.enqueue(...steps);
    const model = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url, idleTimeoutMs: 1000 });
    const started = performance.now();
    const calls = steps.map((_, i) => outcome(model({ request: request(`stream ${i}`), turnCount: 1, onToolUse: () => {} }, new AbortController().signal), started));
    const outcomes = await Promise.all(calls);
    const cut = outcomes.filter((o) => o.end !== 'done');
    expect(cut.map((o) => o.end)).toEqual(['timeout']);
    expect(cut[0]?.afterMs).toBeGreaterThanOrEqual(1000);
    expect(outcomes.filter((o) => o.end === 'done')).toHaveLength(23);
  });

  it('a stream with a short bound stalls while one with a long bound is watched: it is cut at its own bound', async () => {
    server.enqueue(stall, stall);
    const patient = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url, idleTimeoutMs: 60_000 });
    const hasty = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url, idleTimeoutMs: 300 });
    const started = performance.now();
    const stopPatient = new AbortController();
    const waiting = outcome(patient({ request: request('patient'), turnCount: 1, onToolUse: () => {} }, stopPatient.signal), started);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the long bound's watch first: the timer is set for it
    const cut = await outcome(hasty({ request: request('hasty'), turnCount: 1, onToolUse: () => {} }, new AbortController().signal), started);
    expect(cut.end).toBe('timeout');
    expect(cut.afterMs).toBeLessThan(30_000); // long before the patient stream's bound
    stopPatient.abort(new Error('the test is over'));
    expect((await waiting).end).not.toBe('timeout');
  });

  it('a request answered with nothing at all, not even its headers, is cut at the idle bound, and said so', async () => {
    server.enqueue({ fault: 'no-response' });
    const model = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url, idleTimeoutMs: 300 });
    const call = model({ request: request('unanswered'), turnCount: 1, onToolUse: () => {} }, new AbortController().signal);
    await expect(call).rejects.toMatchObject({ kind: 'timeout', message: 'the API stream sent nothing for 300 ms' });
  });

  it("the caller's abort while the request waits, and while the stream is read, rejects with the caller's reason or the SDK's abort, never a timeout", async () => {
    server.enqueue({ fault: 'no-response' }, steady);
    const model = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url, idleTimeoutMs: 60_000 });
    const waiting = new AbortController();
    const first = model({ request: request('waiting'), turnCount: 1, onToolUse: () => {} }, waiting.signal);
    setTimeout(() => waiting.abort(new Error('stop waiting')), 100);
    await expect(first).rejects.not.toBeInstanceOf(ModelError);
    const reading = new AbortController();
    const reason = new Error('stop reading');
    const second = model({ request: request('reading'), turnCount: 1, onToolUse: () => {}, onText: () => reading.abort(reason) }, reading.signal);
    await expect(second).rejects.toBe(reason);
  });
});
