import { describe, expect, it } from 'vitest';
import { appendUser, appendUserText } from '../../src/history/messages.js';
import { historyProblems } from '../../src/history/validate.js';
import type { MessageParam } from '../../src/model/types.js';

const use = (id: string) => ({ type: 'tool_use' as const, id, name: 'bash', input: { command: 'ls' } });
const result = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'ok' });
const user = (content: MessageParam['content']): MessageParam => ({ role: 'user', content });
const assistant = (content: MessageParam['content']): MessageParam => ({ role: 'assistant', content });

describe('historyProblems', () => {
  it('accepts a valid two-turn history, and one that ends with an assistant prefill', () => {
    expect(historyProblems([user('hi'), assistant([use('a')]), user([result('a')]), assistant('done')])).toEqual([]);
    expect(historyProblems([user('hi'), assistant('partial')])).toEqual([]);
  });

  it.each<[string, MessageParam[], RegExp]>([
    ['an empty history', [], /empty/],
    ['a first message from the assistant', [assistant('x'), user('y')], /messages\[0\] must be a user/],
    ['two user messages in a row', [user('a'), user('b')], /same role/],
    ['empty content', [user('a'), assistant([])], /is empty/],
    ['a tool_use with no result after it', [user('a'), assistant([use('t')]), user('next')], /tool_use t has no tool_result/],
    ['a tool_use at the end', [user('a'), assistant([use('t')])], /tool_use t has no tool_result/],
    [
      'a result for an unknown id',
      [user('a'), assistant([use('t')]), user([result('t'), result('x')])],
      /unexpected tool_use_id x/,
    ],
    [
      'a result after text',
      [user('a'), assistant([use('t')]), user([{ type: 'text', text: 'hi' }, result('t')])],
      /after other blocks/,
    ],
    ['a result answered twice', [user('a'), assistant([use('t')]), user([result('t'), result('t')])], /twice/],
    [
      'a repeated tool_use id',
      [user('a'), assistant([use('t')]), user([result('t')]), assistant([use('t')]), user([result('t')])],
      /repeats tool_use id t/,
    ],
    [
      'a tool_use input that is not an object',
      [user('a'), assistant([{ type: 'tool_use', id: 't', name: 'bash', input: 'ls' }]), user([result('t')])],
      /not an object/,
    ],
  ])('rejects %s', (_, messages, problem) => {
    expect(historyProblems(messages).join('\n')).toMatch(problem);
  });
});

describe('appendUser', () => {
  it('joins the last user message instead of adding a second one in a row', () => {
    const merged = appendUserText([user('first')], 'second');
    expect(merged).toEqual([user([{ type: 'text', text: 'first' }, { type: 'text', text: 'second' }])]);
    expect(historyProblems(merged)).toEqual([]);
  });

  it('adds a new user message after an assistant message and adds nothing for no blocks', () => {
    const history = [user('q'), assistant('a')];
    expect(appendUserText(history, 'next')).toHaveLength(3);
    expect(appendUser(history, [])).toEqual(history);
  });
});

describe('appendAssistant', () => {
  it('joins a reply that continues a paused turn to that turn, so roles keep alternating', async () => {
    const { appendAssistant } = await import('../../src/history/messages.js');
    const paused = [user('q'), assistant([{ type: 'text', text: 'searching' }])];
    const continued = appendAssistant(paused, [use('t')]);
    expect(continued).toEqual([user('q'), assistant([{ type: 'text', text: 'searching' }, use('t')])]);
  });
});
