/**
 * One SDK client a process for the runs with the same settings (anthropic/client.ts `sharedClient`): runs at once
 * share it, and nothing of one run reaches another through it: not its abort, not its key, not the SDK's
 * variables as they were when it was built.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedClient } from '../../src/anthropic/client.js';
import { runAgent } from '../../src/run/runAgent.js';
import { firstPrompt } from '../support/agentServer.js';
import { startMessagesServer, type MessagesServer, type Step } from '../support/messagesServer.js';

let server: MessagesServer;
/** Releases of the requests held at the server, by prompt. */
const held = new Map<string, () => void>();

/** Answers each request with its prompt; a prompt that starts with `hold` waits until the test lets it go. */
const echo: Step = async (body) => {
  const prompt = firstPrompt(body);
  if (prompt.startsWith('hold')) await new Promise<void>((release) => held.set(prompt, release));
  return { content: [{ type: 'text', text: `answer to ${prompt}` }], stop_reason: 'end_turn' };
};

beforeAll(async () => {
  server = await startMessagesServer();
});
afterAll(async () => {
  for (const release of held.values()) release();
  await server.close();
});

const settings = (apiKey = 'sk-ant-shared-1') => ({ apiKey, baseURL: server.url });
const run = (prompt: string, extra: { apiKey?: string; signal?: AbortSignal } = {}) =>
  runAgent(prompt, { model: 'claude-test', tools: [], client: settings(extra.apiKey), retryBaseMs: 1, ...(extra.signal ? { signal: extra.signal } : {}) });
const keyOf = (headers: Record<string, string>) => headers['x-api-key'] ?? headers.authorization ?? '';
const requestOf = (prompt: string) => server.requests.find((r) => r.body && firstPrompt(r.body) === prompt);

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe('the client shared by the runs of a process', () => {
  it('is one for the same settings, another for another key, base URL, timeout or SDK variable', () => {
    const one = sharedClient(settings());
    expect(sharedClient(settings())).toBe(one);
    expect(sharedClient(settings('sk-ant-shared-2'))).not.toBe(one);
    expect(sharedClient({ ...settings(), baseURL: `${server.url}/other` })).not.toBe(one);
    expect(sharedClient({ ...settings(), timeoutMs: 5000 })).not.toBe(one);
    process.env.ANTHROPIC_LOG = 'warn';
    try {
      expect(sharedClient(settings())).not.toBe(one);
    } finally {
      delete process.env.ANTHROPIC_LOG;
    }
    expect(sharedClient(settings())).toBe(one);
    expect(sharedClient({ baseURL: server.url })).not.toBe(sharedClient({ baseURL: server.url })); // no key: the SDK's own chain, each time
  });

  it("one run's abort stops that run alone: the runs beside it, and the next, finish", async () => {
    for (let i = 0; i < 3; i++) server.enqueue(echo);
    const stop = new AbortController();
    const aborted = run('hold the aborted run', { signal: stop.signal });
    const beside = run('hold the run beside it');
    await until(() => held.has('hold the aborted run') && held.has('hold the run beside it'));
    stop.abort();
    expect((await aborted).state).toBe('aborted');
    held.get('hold the run beside it')?.();
    const result = await beside;
    expect([result.state, result.text]).toEqual(['done', 'answer to hold the run beside it']);
    const next = await run('the next run');
    expect([next.state, next.text]).toEqual(['done', 'answer to the next run']);
  });

  it("each run's key goes with its own requests alone, runs at once", async () => {
    const keys = ['sk-ant-run-a-000000', 'sk-ant-run-b-111111', 'sk-ant-run-a-000000', 'sk-ant-run-c-222222'];
    for (const _ of keys) server.enqueue(echo);
    const results = await Promise.all(keys.map((key, i) => run(`keyed ${i}`, { apiKey: key })));
    expect(results.map((r) => r.state)).toEqual(keys.map(() => 'done'));
    keys.forEach((key, i) => expect(keyOf(requestOf(`keyed ${i}`)?.headers ?? {})).toContain(key));
  });

  it("ANTHROPIC_CUSTOM_HEADERS changed between runs: each run's requests carry the headers of its start", async () => {
    const before = process.env.ANTHROPIC_CUSTOM_HEADERS;
    try {
      server.enqueue(echo, echo);
      process.env.ANTHROPIC_CUSTOM_HEADERS = 'x-team: blue';
      await run('with the blue team');
      process.env.ANTHROPIC_CUSTOM_HEADERS = 'x-team: red';
      await run('with the red team');
    } finally {
      if (before === undefined) delete process.env.ANTHROPIC_CUSTOM_HEADERS;
      else process.env.ANTHROPIC_CUSTOM_HEADERS = before;
    }
    expect(requestOf('with the blue team')?.headers['x-team']).toBe('blue');
    expect(requestOf('with the red team')?.headers['x-team']).toBe('red');
  });
});
