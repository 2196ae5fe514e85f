import fc from 'fast-check';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OutputCollector, type CollectedOutput } from '../../../src/tools/bash/run/output.js';
import { charLength, prefixEnd, suffixStart } from '../../../src/tools/bash/run/utf8.js';

const MARKER = /\n\[\.\.\. (\d+) bytes omitted \.\.\.\]\n/;
const saved: string[] = [];

afterEach(() => {
  for (const path of saved.splice(0)) rmSync(dirname(path), { recursive: true, force: true });
});

function collect(chunks: Buffer[], maxChars: number, maxFileBytes = 1 << 30): CollectedOutput {
  const c = new OutputCollector({ maxChars, maxFileBytes });
  for (const chunk of chunks) c.write(chunk);
  const out = c.finish();
  if (out.file !== undefined) saved.push(out.file.path);
  return out;
}

/** Cuts `buf` into chunks at the given (sorted, deduplicated) offsets. */
function split(buf: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let last = 0;
  for (const p of [...points, buf.length]) {
    chunks.push(buf.subarray(last, p));
    last = p;
  }
  return chunks;
}

describe('OutputCollector', () => {
  it('returns short output whole, with no file', () => {
    const out = collect([Buffer.from('hello\n'), Buffer.from('world\n')], 100);
    expect(out).toEqual({ text: 'hello\nworld\n', totalBytes: 12, truncated: false, omittedBytes: 0, invalidUtf8: false });
  });

  it('keeps head and tail of long output, counts the bytes left out and saves everything', () => {
    const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => `line ${i}\n`).join(''));
    const out = collect(split(data, [7, 100, 5000]), 100);
    expect(out.truncated).toBe(true);
    const [head, tail] = out.text.split(MARKER.exec(out.text)?.[0] ?? '!');
    expect(data.toString().startsWith(head as string)).toBe(true);
    expect(data.toString().endsWith(tail as string)).toBe(true);
    expect((head as string).length).toBe(50);
    expect((tail as string).length).toBe(50);
    expect(out.omittedBytes).toBe(data.length - 100);
    expect(out.text).toContain(`[... ${data.length - 100} bytes omitted ...]`);
    expect(out.file?.complete).toBe(true);
    expect(readFileSync(out.file?.path as string).equals(data)).toBe(true);
  });

  it('holds bounded memory whatever is written (50 MB in 64 KiB chunks)', () => {
    const c = new OutputCollector({ maxChars: 1000, maxFileBytes: 0 });
    const chunk = Buffer.alloc(65536, 'y');
    let peak = 0;
    for (let i = 0; i < 800; i++) {
      c.write(chunk);
      peak = Math.max(peak, c.retainedBytes);
    }
    expect(peak).toBeLessThanOrEqual(2 * 4 * 1000 + chunk.length);
    const out = c.finish();
    if (out.file !== undefined) saved.push(out.file.path);
    expect(out.totalBytes).toBe(800 * 65536);
    expect(out.file?.bytes).toBe(0);
    expect(out.file?.complete).toBe(false);
  });

  it('stops the saved file at maxFileBytes', () => {
    const data = Buffer.alloc(10_000, 'a');
    const out = collect(split(data, [1000, 3000]), 100, 4096);
    expect(out.file).toMatchObject({ bytes: 4096, complete: false });
    expect(readFileSync(out.file?.path as string).length).toBe(4096);
  });

  it('reports invalid UTF-8 but not a valid character split across chunks', () => {
    const euro = Buffer.from('€'); // 3 bytes
    const split3 = collect([euro.subarray(0, 1), euro.subarray(1, 2), euro.subarray(2)], 100);
    expect(split3).toMatchObject({ text: '€', invalidUtf8: false });
    const bad = collect([Buffer.from([0x61, 0xff, 0x62])], 100);
    expect(bad).toMatchObject({ text: 'a\uFFFDb', invalidUtf8: true });
    const cutShort = collect([Buffer.from([0x61, 0xe2, 0x82])], 100);
    expect(cutShort.invalidUtf8).toBe(true);
  });

  it('cuts at character boundaries: head a prefix, tail a suffix, never over the cap (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 400 }),
        fc.integer({ min: 2, max: 120 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (text, maxChars, cuts) => {
          const data = Buffer.from(text);
          const out = collect(split(data, cuts), maxChars);
          expect(out.invalidUtf8).toBe(false);
          if (!out.truncated) {
            expect(out.text).toBe(text);
            expect(text.length).toBeLessThanOrEqual(maxChars);
            return;
          }
          const marker = MARKER.exec(out.text);
          expect(marker).not.toBeNull();
          const head = out.text.slice(0, marker?.index);
          const tail = out.text.slice((marker?.index ?? 0) + (marker?.[0].length ?? 0));
          expect(head.length + tail.length).toBeLessThanOrEqual(maxChars);
          expect(text.startsWith(head)).toBe(true);
          expect(text.endsWith(tail)).toBe(true);
          expect(out.omittedBytes).toBe(data.length - Buffer.byteLength(head) - Buffer.byteLength(tail));
          expect(readFileSync(out.file?.path as string).equals(data)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never shows more than the cap for arbitrary bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.integer({ min: 1, max: 100 }), (bytes, maxChars) => {
        const out = collect([Buffer.from(bytes)], maxChars);
        const shown = out.text.replace(MARKER, '');
        expect(shown.length).toBeLessThanOrEqual(maxChars);
        expect(out.file !== undefined && existsSync(out.file.path)).toBe(out.truncated);
      }),
      { numRuns: 300 },
    );
  });
});

describe('utf8 helpers', () => {
  it('measures characters and refuses overlong forms and surrogates', () => {
    expect(charLength(Buffer.from('a'), 0)).toBe(1);
    expect(charLength(Buffer.from('é'), 0)).toBe(2);
    expect(charLength(Buffer.from('€'), 0)).toBe(3);
    expect(charLength(Buffer.from('😀'), 0)).toBe(4);
    expect(charLength(Buffer.from([0xc0, 0x80]), 0)).toBe(1); // overlong
    expect(charLength(Buffer.from([0xed, 0xa0, 0x80]), 0)).toBe(1); // surrogate
    expect(charLength(Buffer.from([0xf4, 0x90, 0x80, 0x80]), 0)).toBe(1); // > U+10FFFF
    expect(charLength(Buffer.from([0xe2, 0x82]), 0)).toBe(1); // cut short
  });

  it('finds boundaries counting UTF-16 units', () => {
    const buf = Buffer.from('a😀é');
    expect(prefixEnd(buf, 1)).toBe(1);
    expect(prefixEnd(buf, 2)).toBe(1); // the emoji needs two units
    expect(prefixEnd(buf, 3)).toBe(5);
    expect(suffixStart(buf, 1)).toBe(5);
    expect(suffixStart(buf, 2)).toBe(5);
    expect(suffixStart(buf, 3)).toBe(1);
    expect(suffixStart(Buffer.from('€x').subarray(1), 5)).toBe(2); // skips a cut character
  });
});
