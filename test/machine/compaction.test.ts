/**
 * Compaction as a state of the machine (issue 42), driven by the scripted model: entered before a request estimated
 * past the threshold of the window, and after the API refuses one as too long (the same turn is sent again,
 * compacted; a second refusal ends the run, not a loop). Every request sent is valid for the API and fits.
 */
import { describe, expect, it } from 'vitest';
import type { MachineEvent } from '../../src/core/events.js';
import { ModelError } from '../../src/core/model.js';
import { isCompactRequest } from '../../src/history/compact.js';
import { jsonTokens } from '../../src/history/tokens.js';
import { reply } from '../../src/scripted/model.js';
import { drive, echoTool, requestProblems } from '../support/drive.js';

const tooLong = () => ({ error: new ModelError('prompt_too_long', 'prompt is too long: 9000 tokens > 8000 maximum', { status: 400 }) });
const boundaries = (events: MachineEvent[]) => events.flatMap((e) => (e.type === 'compact_boundary' ? [e.boundary] : []));
const big = (n: number) => 'x'.repeat(n);
/** A history with an exchange before the question: something to compact (a history of the one question has none). */
const exchange = () => [
  { role: 'user' as const, content: 'first' },
  { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'first answer' }] },
  { role: 'user' as const, content: 'go' },
];
/** A history of `turns` tool exchanges, each result `chars` long, then a user question. */
function longHistory(turns: number, chars: number) {
  const messages = [];
  for (let i = 1; i <= turns; i++) {
    messages.push({ role: i === 1 ? ('user' as const) : ('user' as const), content: i === 1 ? 'print the chunks' : [{ type: 'tool_result' as const, tool_use_id: `t${i - 1}`, content: big(chars) }] });
    messages.push({ role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: `t${i}`, name: 'echo', input: { text: `chunk ${i}` } }] });
  }
  messages.push({ role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: `t${turns}`, content: big(chars) }] });
  return messages;
}

describe('compaction in the machine', () => {
  it('after a refusal, compacts and sends the same turn again, which is answered', async () => {
    const run = await drive({ messages: exchange(), steps: [tooLong(), reply.text('ok')] });
    expect(run.finalState).toBe('done');
    expect(run.context.exitReason).toBe('completed');
    expect(run.states).toEqual(['callingModel', 'compacting', 'callingModel', 'done']);
    expect(run.requests.map(isCompactRequest)).toEqual([false, true, false]);
    expect(boundaries(run.events)).toEqual([expect.objectContaining({ trigger: 'prompt_too_long', kind: 'summary', messagesBefore: 3 })]);
    expect(JSON.stringify(run.requests[2]?.messages)).toContain('This session is being continued');
    expect(run.context.compaction.learnedWindow).toBe(8000);
    expect(requestProblems(run.requests)).toEqual([]);
  });

  it('ends with prompt_too_long at once when the refused request is the one question: nothing to compact, no summary asked', async () => {
    const run = await drive({ steps: [tooLong(), reply.text('never')] });
    expect(run.context.exitReason).toBe('prompt_too_long');
    expect(run.states).toEqual(['callingModel', 'failed']);
    expect(run.requests).toHaveLength(1);
    expect(boundaries(run.events)).toEqual([]);
  });

  it('ends with prompt_too_long when the compacted request is refused again: no loop', async () => {
    const run = await drive({ messages: exchange(), steps: [tooLong(), tooLong(), reply.text('never')] });
    expect(run.finalState).toBe('failed');
    expect(run.context.exitReason).toBe('prompt_too_long');
    expect(boundaries(run.events)).toHaveLength(1);
    expect(run.requests).toHaveLength(3);
  });

  it('compacts before a request estimated past the threshold: the scripted model of that window refuses none', async () => {
    const window = 3000;
    const tools = [echoTool()];
    const steps = [1, 2, 3, 4, 5, 6].map((i) => reply.toolUse([{ id: `u${i}`, name: 'echo', input: { text: big(3000) } }]));
    const run = await drive({ steps: [...steps, reply.text('done')], tools, config: { contextWindow: window }, scripted: { contextWindow: window } });
    expect(run.context.error).toBeNull();
    expect(run.context.exitReason).toBe('completed');
    const found = boundaries(run.events);
    expect(found.length).toBeGreaterThan(0);
    expect(found.map((b) => [b.trigger, b.tokensAfter < b.tokensBefore])).toEqual(found.map(() => ['threshold', true]));
    for (const request of run.requests) expect(jsonTokens(request.messages) + jsonTokens(request.tools)).toBeLessThanOrEqual(window);
    expect(requestProblems(run.requests)).toEqual([]);
  });

  it('clears old tool results first when that is enough: no summary call', async () => {
    const run = await drive({ steps: [reply.text('ok')], messages: longHistory(4, 4000), config: { contextWindow: 4000 } });
    const [boundary] = boundaries(run.events);
    expect(boundary).toMatchObject({ trigger: 'threshold', kind: 'cleared', clearedResults: 3 });
    expect(run.requests.map(isCompactRequest)).toEqual([false]);
    expect(requestProblems(run.requests)).toEqual([]);
  });

  it('summarizes with `strategy: summary`, keeping the recent exchange whole and the user\'s request verbatim', async () => {
    const run = await drive({ steps: [reply.text('ok')], messages: longHistory(4, 2000), config: { contextWindow: 20_000, compaction: { threshold: 0.1, strategy: 'summary' } } });
    const [boundary] = boundaries(run.events);
    expect(boundary).toMatchObject({ trigger: 'threshold', kind: 'summary' });
    const sent = run.requests[1]?.messages ?? [];
    expect(sent[0]?.role).toBe('user');
    expect(JSON.stringify(sent[0])).toContain("The user's latest request, verbatim:\\nprint the chunks");
    // The kept tail starts at an assistant message: its tool_use and tool_result stay together.
    expect(sent[1]?.role).toBe('assistant');
    expect(sent.length).toBeLessThan(longHistory(4, 2000).length);
    expect(requestProblems(run.requests)).toEqual([]);
  });

  it('retries a compaction whose call failed with a retryable error, then goes on', async () => {
    let calls = 0;
    const summary = () => (++calls === 1 ? { error: new ModelError('overloaded', 'Overloaded', { status: 529 }) } : '<summary>s</summary>');
    const run = await drive({ messages: exchange(), steps: [tooLong(), reply.text('ok')], scripted: { summary } });
    expect(run.states).toEqual(['callingModel', 'compacting', 'waitingToRetry', 'compacting', 'callingModel', 'done']);
    expect(run.context.exitReason).toBe('completed');
  });

  it('ends with prompt_too_long when the summary request itself is refused as too long', async () => {
    const run = await drive({ messages: exchange(), steps: [tooLong(), reply.text('never')], scripted: { summary: () => tooLong() } });
    expect(run.context.exitReason).toBe('prompt_too_long');
    expect(run.states).toEqual(['callingModel', 'compacting', 'failed']);
  });

  it('is aborted while compacting with the history as it was', async () => {
    const run = await drive({
      messages: exchange(),
      steps: [tooLong()],
      scripted: { summary: () => ({ error: new ModelError('overloaded', 'Overloaded', { status: 529 }) }) },
      modelDelayMs: 30,
      onStart: (actor) => {
        const sub = actor.subscribe((s) => {
          if (!s.matches({ turn: 'compacting' })) return;
          sub.unsubscribe();
          actor.send({ type: 'ABORT' });
        });
      },
    });
    expect(run.finalState).toBe('aborted');
    expect(run.context.messages).toEqual(exchange());
  });

  it('counts the summary call in the run\'s usage and cost', async () => {
    const summary = () => ({ content: [{ type: 'text' as const, text: '<summary>s</summary>' }], stop_reason: 'end_turn' as const, usage: { input_tokens: 1000, output_tokens: 100 } });
    const run = await drive({ messages: exchange(), steps: [tooLong(), reply.text('ok')], scripted: { summary }, config: { model: 'claude-sonnet-4-5' } });
    expect(run.context.usage).toMatchObject({ input_tokens: 1000, output_tokens: 100 });
    expect(run.context.costUsd).toBeGreaterThan(0);
    expect(boundaries(run.events)[0]?.usage).toMatchObject({ input_tokens: 1000 });
  });

  it('keeps its estimate linear with a model that counts no tokens: each reply moves the basis to the end of the history', async () => {
    const steps = [1, 2, 3].map((i) => reply.toolUse([{ id: `u${i}`, name: 'echo', input: { text: `t${i}` } }]));
    const run = await drive({ steps: [...steps, reply.text('done')], tools: [echoTool()], config: { contextWindow: 100_000 } });
    expect(run.context.compaction.basis.messages).toBe(run.context.messages.length);
    expect(run.context.compaction.basis.tokens).toBeGreaterThan(0);
  });

  it('asks for the summary with the run\'s thinking setting, as its own requests go', async () => {
    const run = await drive({ messages: exchange(), steps: [tooLong(), reply.text('ok')], config: { model: 'claude-sonnet-4-5', thinking: { budgetTokens: 2000 }, maxTokens: 8000 } });
    const [first, summary] = run.requests;
    expect(isCompactRequest(summary as never)).toBe(true);
    expect(summary?.thinking).toEqual(first?.thinking);
    expect(summary?.thinking).toBeDefined();
  });
});

describe('a compaction a PreCompact hook blocks', () => {
  /** A PreCompact hook answering `answer`, keeping what it was told in `told`. */
  const hookAnswering = (answer: { block?: string; instructions?: string }, told: unknown[]) => ({ beforeCompact: (info: unknown) => (told.push(info), answer) });

  it('near the window: no summary is asked, the request goes as it is, the run goes on (no boundary)', async () => {
    const told: unknown[] = [];
    const hooks = hookAnswering({ block: '[callback]' }, told);
    const run = await drive({ hooks, steps: [reply.text('ok')], messages: longHistory(4, 4000), config: { contextWindow: 4000 } });
    expect(told).toEqual([{ trigger: 'auto', instructions: null }]);
    expect(run.states).toEqual(['compacting', 'callingModel', 'done']);
    expect(run.context.exitReason).toBe('completed');
    expect(boundaries(run.events)).toEqual([]);
    expect(run.requests.map(isCompactRequest)).toEqual([false]);
  });

  it('after a refusal: the request is sent again as it is, and refused again the run ends with prompt_too_long, no loop', async () => {
    const told: unknown[] = [];
    const hooks = hookAnswering({ block: '[callback]' }, told);
    const run = await drive({ hooks, steps: [tooLong(), tooLong(), reply.text('never')], messages: exchange() });
    expect(told).toHaveLength(1);
    expect(run.states).toEqual(['callingModel', 'compacting', 'callingModel', 'failed']);
    expect(run.context.exitReason).toBe('prompt_too_long');
    expect(run.requests.map(isCompactRequest)).toEqual([false, false]);
  });

  it("a hook's instructions go into the summary request after the user's", async () => {
    const told: unknown[] = [];
    const hooks = hookAnswering({ instructions: 'keep pears' }, told);
    const run = await drive({ hooks, steps: [tooLong(), reply.text('ok')], messages: exchange() });
    expect(run.context.exitReason).toBe('completed');
    expect(JSON.stringify(run.requests[1]?.messages.at(-1))).toContain('keep pears');
  });
});
