/**
 * `visible`: whatever the text, nothing a terminal would act on is left in it (a property over random strings rich in
 * control characters), text without such characters is untouched, and each kind shows as documented. `jsonEscaped`:
 * whatever the value, its JSON holds none of them raw and reads back as the same value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonEscaped, visible } from '../../src/core/visible.js';

/** What a terminal acts on or reorders by: C0 but tab and newline, DEL, C1, bidi controls; CR unless before LF. */
const ACTED_ON = /\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const risky = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x7f, max: 0x9f }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\r\n', '\x1b]52;c;', '\x1b[2J'),
);
const text = fc.array(fc.oneof(risky, fc.string({ unit: 'grapheme' }), fc.constantFrom('^', '[', 'M-', '<U+', '\t', '\n')), { maxLength: 40 }).map((parts) => parts.join(''));

describe('visible', () => {
  it('leaves nothing a terminal acts on, whatever the text', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(visible(s)).not.toMatch(ACTED_ON);
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves text without such characters as it is: tabs, newlines, CRLF, emoji with joiners, right-to-left script', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        if (!ACTED_ON.test(s)) expect(visible(s)).toBe(s);
      }),
      { numRuns: 2000 },
    );
    for (const s of ['a\tb\nc', 'dos line\r\nnext', '👩‍👩‍👧 family', 'שלום עולם', 'naïve café']) expect(visible(s)).toBe(s);
  });

  it('shows each kind as cat -v does, and bidi controls by their code point', () => {
    expect(visible('\x1b]0;title\x07')).toBe('^[]0;title^G');
    expect(visible('\x1b]52;c;aGk=\x1b\\')).toBe('^[]52;c;aGk=^[\\');
    expect(visible('\x00\x08\x7f')).toBe('^@^H^?');
    expect(visible('done\rFAKE')).toBe('done^MFAKE');
    expect(visible('line\r\n')).toBe('line\r\n');
    expect(visible('\u009b2J\u009d0;t\u009c')).toBe('M-^[2JM-^]0;tM-^\\');
    expect(visible('abc\u202edef\u2066x\u2069')).toBe('abc<U+202E>def<U+2066>x<U+2069>');
  });
});

describe('jsonEscaped', () => {
  it('leaves no character a terminal acts on raw in JSON (C1 and bidi controls too), and the data reads back exact', () => {
    const value = fc.oneof(text, fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 }), fc.integer())));
    fc.assert(
      fc.property(value, (v) => {
        const json = jsonEscaped(JSON.stringify(v));
        expect(json).not.toMatch(ACTED_ON);
        expect(json).not.toMatch(/[\u2028\u2029]/);
        expect(JSON.parse(json)).toEqual(v);
      }),
      { numRuns: 1000 },
    );
    expect(jsonEscaped(JSON.stringify('a\u009b2J\u202eb'))).toBe('"a\\u009b2J\\u202eb"');
  });
});
