/**
 * The redactor (core/redact.ts): what it promises, as properties over random secrets (letters, digits and the
 * characters JSON, URLs and HTML write otherwise), random texts, and random placements of the secret in any mix of
 * the forms JSON, URL and HTML give its characters; and what it does not promise, pinned as such.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, MIN_SECRET_LENGTH, noRedaction } from '../../src/core/redact.js';

const NAME = 'K';
const MARK = `[redacted ${NAME}]`;

const secretChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'abcXYZ0189_-.~') },
  { weight: 3, arbitrary: fc.constantFrom(...' "\'&<>/\\%+:@?=#;\n\té€😀') },
);
/** A secret: long enough, with a digit (so that it is never a piece of the marker). */
const secret = fc.array(secretChar, { minLength: MIN_SECRET_LENGTH, maxLength: 40 }).map((cs) => `${cs.join('')}7`);

const hexCase = (text: string, upper: boolean) => (upper ? text.toUpperCase() : text.toLowerCase());

/** Every form the redactor promises to find one character in. */
function charForms(char: string): string[] {
  if (/^[A-Za-z0-9_.~-]$/.test(char)) return [char];
  const cp = char.codePointAt(0) as number;
  const units = char.length === 1 ? [cp] : [char.charCodeAt(0), char.charCodeAt(1)];
  const u = (upper: boolean) => units.map((n) => `\\u${hexCase(n.toString(16).padStart(4, '0'), upper)}`).join('');
  const pct = (upper: boolean) => [...new TextEncoder().encode(char)].map((b) => `%${hexCase(b.toString(16).padStart(2, '0'), upper)}`).join('');
  const named: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
  return [
    char,
    JSON.stringify(char).slice(1, -1),
    ...(char === '/' ? ['\\/'] : []),
    u(false),
    u(true),
    pct(false),
    pct(true),
    ...(char === ' ' ? ['+'] : []),
    `&#${cp};`,
    `&#x${cp.toString(16)};`,
    `&#X${cp.toString(16).toUpperCase()};`,
    ...(named[char] ? [named[char]] : []),
  ];
}

/** The secret with each character in a form chosen by `picks`. */
const encoded = (value: string, picks: number[]) => [...value].map((c, i) => {
  const forms = charForms(c);
  return forms[(picks[i] ?? 0) % forms.length] as string;
}).join('');

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, (c) => `\\${c}`);

/**
 * Whether `text` holds `value` in some mix of its promised forms: a near miss may spell it so by chance (the piece
 * `aaaa a ` then `+7` is `aaaa a  7` with its second space form-encoded), and then it is no near miss.
 */
const holdsAnyForm = (text: string, value: string) =>
  new RegExp([...value].map((c) => `(?:${charForms(c).map(escapeRegExp).join('|')})`).join('')).test(text);

/** Filler around the secret: any text, also one rich in the same characters. */
const filler = fc.oneof(fc.string({ maxLength: 30 }), fc.array(secretChar, { maxLength: 12 }).map((cs) => cs.join('')));

describe('createRedactor', () => {
  it('finds the secret wherever it stands, in any mix of its promised forms, as often as it stands there', () => {
    fc.assert(
      fc.property(secret, fc.array(fc.tuple(filler, fc.array(fc.nat(), { minLength: 41, maxLength: 41 })), { minLength: 1, maxLength: 4 }), filler, (value, placements, tail) => {
        const forms = placements.map(([, picks]) => encoded(value, picks));
        const text = placements.map(([before], i) => `${before}${forms[i]}`).join('') + tail;
        const out = createRedactor([{ name: NAME, value }]).text(text);
        for (const form of forms) expect(out).not.toContain(form);
        expect(out).not.toContain(value);
        expect(out).toContain(MARK);
        expect(createRedactor([{ name: NAME, value }]).text(out)).toBe(out); // nothing of it left to find
      }),
      { numRuns: 1500 },
    );
  });

  it('leaves a text without the secret as it is, its pieces and near misses too', () => {
    fc.assert(
      fc.property(secret, filler, filler, fc.nat(), (value, before, after, cut) => {
        const piece = value.slice(0, MIN_SECRET_LENGTH - 1 + (cut % (value.length - MIN_SECRET_LENGTH + 1)));
        const text = `${before}${piece}${after}`;
        fc.pre(!holdsAnyForm(text, value));
        expect(createRedactor([{ name: NAME, value }]).text(text)).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('json: the same JSON, still valid, every string redacted (keys too), whatever the secret holds', () => {
    const withSecret = (value: string) =>
      fc.jsonValue().chain((json) =>
        fc.constantFrom(
          { data: json, echo: `invalid x-api-key: ${value}` },
          { [`Bearer ${value}`]: json },
          [json, { html: `<pre>Authorization: Bearer ${value}</pre>` }],
          { body: JSON.stringify({ type: 'error', error: { message: value } }) },
        ),
      );
    fc.assert(
      fc.property(secret.chain((value) => fc.tuple(fc.constant(value), withSecret(value))), ([value, data]) => {
        const redactor = createRedactor([{ name: NAME, value }]);
        const json = redactor.json(data);
        const parsed: unknown = JSON.parse(json);
        expect(JSON.stringify(parsed)).not.toContain(JSON.stringify(value).slice(1, -1));
        expect(json).toContain(MARK);
        expect(parsed).toEqual(JSON.parse(JSON.stringify(redactor.value(data))));
        expect(redactor.jsonText(JSON.stringify(data))).toBe(json);
      }),
      { numRuns: 500 },
    );
  });

  it('a value of nothing secret is the same object; a copy only where something was cut', () => {
    const redactor = createRedactor([{ name: NAME, value: 'sk-ant-api03-abcdefgh' }]);
    const clean = { a: [1, 'two', { three: null }], b: 'text' };
    expect(redactor.value(clean)).toBe(clean);
    const mixed = { keep: clean, cut: ['x sk-ant-api03-abcdefgh y'] };
    const out = redactor.value(mixed);
    expect(out).toEqual({ keep: clean, cut: [`x ${MARK} y`] });
    expect(out.keep).toBe(clean);
    expect(mixed.cut[0]).toBe('x sk-ant-api03-abcdefgh y');
  });

  it('the places the issue names: a 401 JSON error, a 502 page, a link, each as one redaction', () => {
    const key = 'sk-ant-api03-Zm9vYmFyYmF6cXV4LTEyMzQ1Njc4OTA';
    const r = createRedactor([{ name: 'ANTHROPIC_API_KEY', value: key }]);
    expect(r.text(`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key: ${key}"}}`)).toBe(
      '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key: [redacted ANTHROPIC_API_KEY]"}}',
    );
    expect(r.text(`<html><pre>authorization: Bearer ${key}\nhost: api</pre></html>`)).toBe('<html><pre>authorization: Bearer [redacted ANTHROPIC_API_KEY]\nhost: api</pre></html>');
    expect(r.text(`https://gw/v1/messages?key=${encodeURIComponent(key)}&x=1`)).toBe('https://gw/v1/messages?key=[redacted ANTHROPIC_API_KEY]&x=1');
  });

  it('cuts the longest value first, skips values too short to be secrets, and is nothing without secrets', () => {
    const r = createRedactor([
      { name: 'SHORT', value: 'abc' },
      { name: 'INNER', value: 'token-12345' },
      { name: 'OUTER', value: 'prefix-token-12345-suffix' },
    ]);
    expect(r.text('prefix-token-12345-suffix and token-12345 and abc')).toBe('[redacted OUTER] and [redacted INNER] and abc');
    expect(createRedactor([{ name: 'SHORT', value: 'abcdefg' }])).toBe(noRedaction);
    expect(noRedaction.text('anything')).toBe('anything');
  });

  it('does not promise a value split over lines, cut short, in another case or in base64 (documented limits)', () => {
    const key = 'sk-ant-api03-abcdefghijklmnop';
    const r = createRedactor([{ name: 'K', value: key }]);
    expect(r.text('sk-ant-api03-abcdefgh\nijklmnop')).toBe('sk-ant-api03-abcdefgh\nijklmnop');
    expect(r.text(key.slice(0, -1))).toBe(key.slice(0, -1));
    expect(r.text(key.toUpperCase())).toBe(key.toUpperCase());
    expect(r.text(btoa(`user:${key}`))).toBe(btoa(`user:${key}`));
  });
});
