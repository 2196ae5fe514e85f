/**
 * The stream reader accepts only what the API can send (issue 24): random valid replies, and random mutations of them,
 * go through the real reader (src/anthropic/call.ts + stream.ts) and the real machine, recorder and resume, in process
 * (a client whose stream is the generated events) and, for a subset, through the real SDK over HTTP from the local
 * Messages API server. Whatever the server sends:
 * - every request holds a valid history, and so does the run's final one;
 * - a reply broken by a mutation is refused: the next request holds the same history, and no id of it is in any later
 *   request, in the final history, or in what `--continue` would rebuild from the transcript;
 * - a valid reply is appended as it was streamed (blank text and a block cut by max_tokens left out);
 * - only read-only (concurrency-safe) tools of a refused reply can have started; each start has its `tool_start`
 *   event and record before the tool's code ran, and the reply's `reply_refused` record names exactly those.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../../src/anthropic/call.js';
import type { RunEvent } from '../../src/core/events.js';
import type { MessageParam } from '../../src/core/messages.js';
import type { Tool } from '../../src/core/tool.js';
import { historyProblems } from '../../src/history/validate.js';
import { runAgent } from '../../src/run/runAgent.js';
import type { SessionRecord } from '../../src/transcript/records.js';
import { restoreConversation } from '../../src/transcript/resume.js';
import { findSession, readTranscript } from '../../src/transcript/store.js';
import { startMessagesServer } from '../support/messagesServer.js';
import { contentOf, eventsOf, isNeutral, mutate, mutation, replySpec, type Event, type Mutation, type ReplySpec } from '../support/replyStreams.js';

interface Step {
  spec: ReplySpec;
  mutation: Mutation | undefined;
}
const step: fc.Arbitrary<Step> = fc.record({ spec: replySpec, mutation: fc.option(mutation, { freq: 2, nil: undefined }) });
const steps = fc.array(step, { minLength: 1, maxLength: 5 });

const FINAL: Event[] = [
  { type: 'message_start', message: { id: 'msg_final', type: 'message', role: 'assistant', model: 'claude-test', content: [], usage: { input_tokens: 1, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'done' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
  { type: 'message_stop' },
];

/** The tools, which note the tags of the tool_use blocks they were called for and whether a tool_start preceded. */
function tools(events: RunEvent[]) {
  const ran: Array<{ tag: string; name: string; announced: boolean }> = [];
  const tool = (name: 'safe' | 'unsafe'): Tool => ({
    name,
    description: name,
    inputSchema: { type: 'object' },
    isConcurrencySafe: () => name === 'safe',
    run: async (input) => {
      const tag = String((input as { tag?: unknown }).tag);
      const announced = events.some((e) => e.type === 'tool_start' && (e.block.input as { tag?: unknown }).tag === tag);
      ran.push({ tag, name, announced });
      await new Promise((resolve) => setImmediate(resolve));
      return { content: 'ok', isError: false };
    },
  });
  return { ran, tools: [tool('safe'), tool('unsafe')] };
}

/** A client whose `messages.create` streams the given replies in turn (a tick after each block, for tools to start). */
function clientOf(streams: Event[][], requests: MessageParam[][]): Anthropic {
  let call = 0;
  const create = async (body: { messages: MessageParam[] }) => {
    requests.push(structuredClone(body.messages));
    const events = streams[call++] ?? FINAL;
    return (async function* () {
      for (const event of events) {
        yield structuredClone(event);
        if (event.type === 'content_block_stop') await new Promise((resolve) => setImmediate(resolve));
      }
    })();
  };
  return { messages: { create } } as unknown as Anthropic;
}

/** Runs the steps against `call` (given the event lists to stream) and checks every property of the file. */
type Runner = (streams: Event[][], home: string, events: RunEvent[], toolset: Tool[]) => Promise<{ requests: MessageParam[][]; sessionId: string }>;

async function check(list: Step[], http: boolean, run: Runner) {
  const streams = list.map(({ spec, mutation: m }, r) => (m ? mutate(eventsOf(spec, r), spec, r, m, http) : eventsOf(spec, r)));
  const refused = list.map((s) => !isNeutral(s.mutation));
  const home = mkdtempSync(join(tmpdir(), 'agentloop-protocol-'));
  try {
    const events: RunEvent[] = [];
    const { ran, tools: toolset } = tools(events);
    const { requests, sessionId } = await run(streams, home, events, toolset);
    const records = readTranscript(findSession(home, sessionId)).records;
    for (const [i, messages] of requests.entries()) expect(historyProblems(messages), `request ${i}`).toEqual([]);
    const calls = Math.min(list.length, requests.length);
    for (let r = 0; r < calls; r++) checkReply(r, list[r] as Step, refused[r] === true, requests);
    expect(records.filter((rec) => rec.type === 'reply_refused')).toHaveLength(refused.slice(0, calls).filter(Boolean).length);
    // Only read-only tools of a refused reply ran, each announced first; no tool ran twice.
    for (const { tag, name, announced } of ran) {
      expect(announced, `${tag} had its tool_start before it ran`).toBe(true);
      const r = Number(/^toolu_r(\d+)/.exec(tag)?.[1]);
      if (refused[r]) expect(name, `${tag} of refused reply ${r}`).toBe('safe');
    }
    expect(new Set(ran.map((t) => t.tag)).size).toBe(ran.length);
    checkRefusalRecords(records);
    const restored = JSON.stringify(restoreConversation(records).messages);
    refused.forEach((bad, r) => bad && expect(restored).not.toMatch(new RegExp(`toolu_r${r}[^0-9]`)));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Reply `r` was refused (the retry sends the same history, none of it is ever sent) or appended as streamed. */
function checkReply(r: number, s: Step, refused: boolean, requests: MessageParam[][]) {
  const before = requests[r] as MessageParam[];
  const after = requests[r + 1];
  const mine = new RegExp(`toolu_r${r}[^0-9]`);
  if (refused) {
    if (after) expect(after, `reply ${r} (${s.mutation?.kind}) was refused`).toEqual(before);
    for (const later of requests.slice(r + 1)) expect(JSON.stringify(later)).not.toMatch(mine);
    return;
  }
  if (!after) return;
  const content = contentOf(s.spec, r);
  if (content.length === 0) expect(after.length, `reply ${r} held nothing to keep`).toBe(before.length);
  else expect(after[before.length], `reply ${r} was appended as streamed`).toEqual({ role: 'assistant', content });
}

/** Each `reply_refused` record names exactly the tools whose `tool_start` came since the request before it. */
function checkRefusalRecords(records: SessionRecord[]) {
  let started: string[] = [];
  for (const record of records) {
    if (record.type === 'request') started = [];
    if (record.type === 'tool_start') started.push(record.block.id);
    if (record.type === 'reply_refused') expect([...record.startedToolIds].sort()).toEqual([...new Set(started)].sort());
  }
}

const settings = { maxRetries: 20, retryBaseMs: 0, retryMaxMs: 0, maxTurns: 60, maxTokensContinuations: 60 };

/** One run of the loop on `modelCall`, saved as a session in `home`. */
async function runLoop(modelCall: ReturnType<typeof createAnthropicModel>, home: string, events: RunEvent[], toolset: Tool[]) {
  const result = await runAgent('go', { model: 'claude-test', modelCall, tools: toolset, cwd: home, session: { home }, onEvent: (e) => events.push(e), ...settings });
  expect(historyProblems(result.context.messages)).toEqual([]);
  return result.sessionId;
}

describe('the stream reader, fed random replies and random mutations of them', () => {
  it('in process, through the real reader, machine, recorder and resume (300 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(steps, (list) =>
        check(list, false, async (streams, home, events, toolset) => {
          const requests: MessageParam[][] = [];
          const model = createAnthropicModel({ client: clientOf(streams, requests), promptCaching: false });
          return { sessionId: await runLoop(model, home, events, toolset), requests };
        }),
      ),
      { numRuns: 300 },
    );
  }, 240_000);

  it('through the real SDK over HTTP from the local Messages API server (25 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(steps, (list) =>
        check(list, true, async (streams, home, events, toolset) => {
          // The replies are raw frames (their thinking blocks never went through the server's ledger): the stream is the subject here.
          const server = await startMessagesServer({ thinkingRules: false });
          try {
            for (const frames of [...streams, FINAL]) server.enqueue({ content: [], stop_reason: 'end_turn', rewrite: () => frames.map((data) => ({ event: data.type, data })) });
            const model = createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url, promptCaching: false });
            const sessionId = await runLoop(model, home, events, toolset);
            return { sessionId, requests: server.requests.map((q) => (q.body?.messages ?? []) as MessageParam[]) };
          } finally {
            await server.close();
          }
        }),
      ),
      { numRuns: 25 },
    );
  }, 240_000);
});
