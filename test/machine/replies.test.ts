/** A reply that would make the history invalid is never appended: it is retried like a broken stream. */
import { describe, expect, it } from 'vitest';
import type { ContentBlock, MessageParam } from '../../src/core/messages.js';
import { historyProblems } from '../../src/history/validate.js';
import { reply, type ScriptedReply } from '../../src/scripted/model.js';
import { drive, echoTool, requestProblems } from '../support/drive.js';

const toolUse = (id: string, input: unknown, name = 'echo') => ({ type: 'tool_use', id, name, input }) as ContentBlock;
const withBlocks = (...content: ContentBlock[]): ScriptedReply => ({ content, stop_reason: 'tool_use' });

function countingTool(safe: boolean) {
  const runs: unknown[] = [];
  const tool = { ...echoTool({ safe }), run: async (input: unknown) => (runs.push(input), { content: 'ran', isError: false }) };
  return { tool, runs };
}

describe('invalid replies', () => {
  it.each([
    ['an input that is an array', withBlocks(toolUse('t1', [1, 2])), [true, false]],
    ['an input that is null', withBlocks(toolUse('t1', null)), [true, false]],
    ['an input that is a string', withBlocks(toolUse('t1', 'echo hi')), [true, false]],
    // With a safe tool the first of the two starts while streaming: see the last test.
    ['two tool_use blocks with one id', withBlocks(toolUse('t1', { text: 'a' }), toolUse('t1', { text: 'b' })), [false]],
    ['a tool_use without an id', withBlocks(toolUse('', {})), [true, false]],
  ])('%s: never appended, never run, retried, and the history sent afterwards is valid', async (_, bad, safeties) => {
    for (const safe of safeties) {
      const { tool, runs } = countingTool(safe);
      const run = await drive({ steps: [bad, reply.text('fine now')], tools: [tool] });
      expect(run.context.exitReason).toBe('completed');
      expect(run.states).toEqual(['callingModel', 'waitingToRetry', 'callingModel', 'done']);
      expect(runs).toEqual([]);
      expect(run.context.messages).toEqual([{ role: 'user', content: 'go' }, { role: 'assistant', content: [{ type: 'text', text: 'fine now' }] }]);
      expect(requestProblems(run.requests)).toEqual([]);
    }
  });

  it('refuses a tool_use id the history already holds', async () => {
    const history: MessageParam[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [toolUse('old', {})] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'old', content: 'x' }] },
    ];
    const { tool, runs } = countingTool(true);
    const run = await drive({ messages: history, steps: [withBlocks(toolUse('old', { text: 'again' })), reply.text('ok')], tools: [tool] });
    expect(runs).toEqual([]);
    expect(run.context.messages).toHaveLength(4);
    expect(historyProblems(run.context.messages)).toEqual([]);
  });

  it('fails cleanly with model_error when every attempt is invalid, the history untouched', async () => {
    const bad = withBlocks(toolUse('t1', [1]));
    const run = await drive({ steps: [bad, bad, bad], config: { maxRetries: 2 }, tools: [echoTool()] });
    expect(run.finalState).toBe('failed');
    expect(run.context.exitReason).toBe('model_error');
    expect(run.context.error).toMatchObject({ kind: 'invalid_reply', message: expect.stringContaining('input that is not an object') });
    expect(run.context.messages).toEqual([{ role: 'user', content: 'go' }]);
  });

  it('retries also after a read-only tool of that reply had started: announced with it, its result dropped, nothing kept', async () => {
    const { tool, runs } = countingTool(true);
    const run = await drive({ steps: [withBlocks(toolUse('a', { text: 'a' }), toolUse('a', { text: 'b' })), reply.text('fine now')], tools: [tool] });
    expect(run.context.exitReason).toBe('completed');
    expect(runs).toEqual([{ text: 'a' }]);
    expect(run.requests).toHaveLength(2);
    expect(run.requests[1]?.messages).toEqual(run.requests[0]?.messages);
    expect(run.events.filter((e) => e.type === 'tool_start').map((e) => e.type === 'tool_start' && e.block.id)).toEqual(['a']);
    expect(run.events.filter((e) => e.type === 'reply_refused')).toMatchObject([
      { turnCount: 1, startedToolIds: ['a'], error: { kind: 'invalid_reply', message: expect.stringContaining('repeats tool_use id a') } },
    ]);
    expect(run.events.some((e) => e.type === 'tool_result')).toBe(false);
    expect(run.context.messages).toEqual([{ role: 'user', content: 'go' }, { role: 'assistant', content: [{ type: 'text', text: 'fine now' }] }]);
  });
});
