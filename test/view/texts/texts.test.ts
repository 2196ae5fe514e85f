/**
 * The lesson's two catalogues (src/view/texts/): the same keys in English and Chinese (a key missing in
 * one fails here), every text whole (no `undefined`, no value left out in one language), the chapter's
 * terms as the chapter writes them, and the page's language picked from the browser's languages.
 */
import { describe, expect, it } from 'vitest';
import { en } from '../../../src/view/texts/en.js';
import type { Line, TextKey } from '../../../src/view/texts/line.js';
import { pickLang, render } from '../../../src/view/texts/render.js';
import { zh } from '../../../src/view/texts/zh.js';

describe('the catalogues', () => {
  it('have the same keys', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    expect(Object.keys(en).length).toBeGreaterThan(150);
  });

  it('render every text in both languages with each value it is given, and nothing undefined', () => {
    const values = { index: 7, number: 3, prev: 2, count: 2, turn: 4, id: 'toolu_x9', ids: 'toolu_x9, toolu_y8', name: 'bash', command: 'ls -A', call: '$ ls -A', stopReason: 'end_turn', reason: 'tool_result', exit: 'completed', list: 'messages[1]', uses: 'bash: ls -A', state: 'done', time: '07:01:02.003', step: 5, ms: 12, error: 'Overloaded', delay: 9, attempt: 2, problem: 'a problem', quote: 'an answer', what: { key: 'what.unbound', params: {} } as Line, delta: { key: 'delta.first', params: {} } as Line, last: 3, lost: 1, chars: 40, names: 'bash', here: true, a: 1, b: null, message: 2, side: 'A', role: 'user', text: 'hello', label: 'demo', pid: 42, value: true, runs: true, agrees: false, early: true, seen: true, input: 1, output: 2, read: 3, write: 4, chars2: 0, n: 1, added: 'messages[1]', changed: '', deleted: '', command2: 'x', rule: 'Bash(rm:*)', since: 'Dec 6, 11:24:58', ago: '3 s', deadline: 'Dec 6, 11:30:00', before: 9, after: 3, sent: 2, summarized: 5, kept: 1, kind: 'summary', trigger: 'threshold' };
    for (const key of Object.keys(en) as TextKey[]) {
      const texts = [render('en', { key, params: values }), render('zh', { key, params: values })];
      for (const text of texts) expect(text, key).not.toMatch(/undefined|\[object/);
      // A value the English names, the Chinese names too (ids, commands, numbers are data, never translated).
      for (const v of ['toolu_x9', 'ls -A', 'end_turn', '07:01:02.003', 'Overloaded', 'messages[7]', 'Bash(rm:*)']) if (texts[0]?.includes(v)) expect(texts[1], `${key}: ${v}`).toContain(v);
    }
  });

  it('render a value of any JSON shape a damaged transcript may hold, as text, never as a line', () => {
    // A record's field where a command or an id was expected: {} or [[]] (test/transcript/damaged.test.ts found it).
    for (const value of [{}, [[]], [{}, 1], { key: 'not.a.key', params: {} }, { key: 'say.retryUnknown' }]) {
      for (const key of Object.keys(en) as TextKey[]) {
        for (const lang of ['en', 'zh'] as const) expect(() => render(lang, { key, params: { command: value, id: value, name: value, error: value } as never })).not.toThrow();
      }
    }
  });

  it('write the chapter’s terms as the chapter does', () => {
    const all = Object.values(zh).map((text) => text({ count: 1, turn: 2, index: 0 }, 'zh')).join('\n');
    for (const term of ['循环', '轮', 'tool_result', 'tool_use', 'state', 'messages', 'stop_reason', 'Harness']) expect(all).toContain(term);
  });

  it('picks the page’s language from the browser’s languages', () => {
    expect(pickLang(['zh-CN', 'en-US'])).toBe('zh');
    expect(pickLang(['fr-FR', 'zh-TW'])).toBe('zh');
    expect(pickLang(['de-DE', 'en-GB'])).toBe('en');
    expect(pickLang([])).toBe('en');
  });
});
