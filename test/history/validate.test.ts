import { describe, expect, it } from 'vitest';
import { appendUser, appendUserText } from '../../src/history/messages.js';
import fc from 'fast-check';
import { assertValidHistory, historyProblems, InvalidHistoryError } from '../../src/history/validate.js';
import type { MessageParam } from '../../src/core/messages.js';

const use = (id: string) => ({ type: 'tool_use' as const, id, name: 'bash', input: { command: 'ls' } });
const result = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'ok' });
const user = (content: MessageParam['content']): MessageParam => ({ role: 'user', content });
const assistant = (content: MessageParam['content']): MessageParam => ({ role: 'assistant', content });

describe('historyProblems', () => {
  it('accepts a valid two-turn history, and one that ends with an assistant prefill', () => {
    expect(historyProblems([user('hi'), assistant([use('a')]), user([result('a')]), assistant('done')])).toEqual([]);
    expect(historyProblems([user('hi'), assistant('partial')])).toEqual([]);
    expect(historyProblems([user('hi'), assistant([use('toolu_01AbZ-9_x')]), user([result('toolu_01AbZ-9_x')])])).toEqual([]);
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
    ['an empty text block', [user([{ type: 'text', text: '' }])], /messages\[0\] \(user\) has an empty text block/],
    ['a text block of white space only', [user('a'), assistant([{ type: 'text', text: ' \n\t' }])], /messages\[1\] \(assistant\) has a text block of white space only/],
    ['content of white space only', [user('a'), assistant('  \n')], /messages\[1\] \(assistant\) is empty/],
    [
      'a tool_use id the API refuses',
      [user('a'), assistant([use('toolu_../../x"<>')]), user([result('toolu_../../x"<>')])],
      /tool_use id "toolu_\.\.\/\.\.\/x\\"<>" the API refuses/,
    ],
    ['a tool_use in a user message', [user([use('t')])], /messages\[0\] \(user\) has a tool_use block/],
    ['a tool_result in an assistant message', [user('a'), assistant([use('t'), result('t')]), user([result('t')])], /messages\[1\] \(assistant\) has a tool_result block/],
    ['a message of another role', [{ role: 'system', content: 'x' } as unknown as MessageParam], /has the role "system"/],
    ['a block that is no object', [user([null as never])], /a block that is not an object with a type/],
    ['content that is no list', [user({ type: 'text', text: 'x' } as never)], /neither a string nor a list/],
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

describe('assertValidHistory on a history that grows', () => {
  it('checks what was appended since the last check, and the whole history when the prefix changed', () => {
    const log: MessageParam[] = [user('hi')];
    assertValidHistory(log);
    log.push(assistant([use('a')]), user([result('a')]));
    assertValidHistory(log);
    // A tool_use id used earlier is still known to the incremental check.
    log.push(assistant([use('a')]), user([result('a')]));
    expect(() => assertValidHistory(log)).toThrow(/repeats tool_use id a/);
    log.splice(3);
    log.push(assistant('done'), user([result('zz')]));
    expect(() => assertValidHistory(log)).toThrow(/unexpected tool_use_id zz/);
    log.splice(3);
    assertValidHistory(log); // after a failure the whole history is checked again: fine
    // The last checked message replaced by another object: checked whole, so a fault earlier is found.
    log[1] = assistant([use('b')]);
    log[2] = user([result('b')]);
    log[0] = assistant('no user first');
    expect(() => assertValidHistory(log)).toThrow(/messages\[0\] must be a user message/);
  });

  it('agrees with historyProblems on histories grown at random, one message at a time', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), kind: fc.constantFrom('text', 'use', 'result', 'empty'), id: fc.constantFrom('a', 'b', 'c', 'd') }), { maxLength: 14 }),
        (steps) => {
          const log: MessageParam[] = [user('go')];
          for (const step of steps) {
            const block = step.kind === 'use' ? use(step.id) : step.kind === 'result' ? result(step.id) : { type: 'text' as const, text: step.kind === 'empty' ? '' : 'x' };
            log.push({ role: step.role, content: step.kind === 'empty' ? [] : [block] } as MessageParam);
            const expected = historyProblems(log);
            let thrown: unknown;
            try {
              assertValidHistory(log);
            } catch (error) {
              thrown = error;
            }
            expect(thrown === undefined, JSON.stringify(log)).toBe(expected.length === 0);
            if (thrown) expect((thrown as InvalidHistoryError).problems).toEqual(expected);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
