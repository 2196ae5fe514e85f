/**
 * Cutting UTF-8 bytes at character boundaries without decoding everything. An invalid byte counts
 * as one byte and one UTF-16 unit (the decoder turns it, or a longer invalid run, into a single
 * U+FFFD), so the units counted here are never fewer than the decoded string's `length`.
 */

/** Length in bytes of the character starting at `i`; 1 for an invalid byte. */
export function charLength(buf: Uint8Array, i: number): number {
  const b = buf[i] as number;
  if (b < 0x80) return 1;
  const n = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
  if (n === 0 || i + n > buf.length) return 1;
  const b1 = buf[i + 1] as number;
  // Second-byte ranges that exclude overlong forms, surrogates and code points above U+10FFFF.
  const lo = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
  const hi = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
  if (b1 < lo || b1 > hi) return 1;
  for (let k = 2; k < n; k++) if (((buf[i + k] as number) & 0xc0) !== 0x80) return 1;
  return n;
}

/** UTF-16 units of a character of `bytes` bytes. */
const units = (bytes: number): number => (bytes === 4 ? 2 : 1);

/** The largest character boundary `end` such that `buf[0, end)` decodes to at most `maxUnits`. */
export function prefixEnd(buf: Uint8Array, maxUnits: number): number {
  let pos = 0;
  let count = 0;
  while (pos < buf.length) {
    const n = charLength(buf, pos);
    if (count + units(n) > maxUnits) break;
    count += units(n);
    pos += n;
  }
  return pos;
}

/**
 * The smallest character boundary `start` such that `buf[start, end)` decodes to at most
 * `maxUnits`. Continuation bytes at the very start (a character cut by the caller) are skipped.
 */
export function suffixStart(buf: Uint8Array, maxUnits: number): number {
  let start = 0;
  while (start < Math.min(3, buf.length) && ((buf[start] as number) & 0xc0) === 0x80) start++;
  let total = 0;
  for (let pos = start; pos < buf.length; ) {
    const n = charLength(buf, pos);
    total += units(n);
    pos += n;
  }
  let pos = start;
  for (let skipped = 0; skipped < total - maxUnits; ) {
    const n = charLength(buf, pos);
    skipped += units(n);
    pos += n;
  }
  return pos;
}
