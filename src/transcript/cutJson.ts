/**
 * Cutting the long strings of one line of JSON before it is parsed: a record of 100 MB becomes a few kilobytes of
 * JSON without ever being a 100 MB JavaScript string, nor a 100 MB buffer (reader.ts). `LineCutter` takes the line
 * in pieces, as they are read, in one pass: it looks for the quotes that open and close strings
 * (`Buffer.indexOf`, as fast as memchr) and keeps what lies outside strings, each short string, and the first
 * `keep` bytes of a long one (never half a UTF-8 character or half an escape), which gets `note(bytes left out)` in
 * place of the rest. Keys are left whole: a long string followed by `:` is read again whole (`reread`), the rare
 * case where more than `keep` bytes of one string are held.
 */

export interface CutterOptions {
  /** How many bytes of a string's JSON are kept. */
  keep: number;
  note: (left: number) => string;
  /** Bytes [start, end) of the line (positions counted from its first byte), read again: a long key. */
  reread: (start: number, end: number) => Buffer;
}

/** A long string closed, its kind (key or value) known only from what follows it. */
interface Closed {
  start: number;
  end: number;
  head: Buffer;
  /** Whitespace between it and what follows. */
  gap: number[];
}

const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;

export class LineCutter {
  private readonly out: Buffer[] = [];
  /** Bytes of the line fed so far. */
  private at = 0;
  /** Within a string: where its contents start, their first `keep + 1` bytes, the backslashes that end them so far. */
  private string: { start: number; head: Buffer[]; headBytes: number; slashes: number } | undefined;
  private closed: Closed | undefined;
  /** Whether a string was cut. */
  cut = false;

  constructor(private readonly options: CutterOptions) {}

  /** The next piece of the line (copied where kept: the caller may reuse its buffer). */
  feed(piece: Buffer): void {
    for (let i = 0; i < piece.length; ) i = this.string ? this.inString(piece, i) : this.outside(piece, i);
    this.at += piece.length;
  }

  /** The line as kept (the whole line when nothing was cut). */
  finish(): string {
    if (this.string) this.out.push(...this.string.head); // never closed: not JSON, as the parser will say
    if (this.closed) this.decide(false);
    return Buffer.concat(this.out).toString('utf8');
  }

  /** Copies up to the next quote, which opens a string; returns where it stopped. */
  private outside(piece: Buffer, from: number): number {
    let i = from;
    if (this.closed) {
      while (i < piece.length && isSpace(piece[i])) this.closed.gap.push(piece[i++] as number);
      if (i === piece.length) return i;
      this.decide(piece[i] === 0x3a);
    }
    const quote = piece.indexOf(0x22, i);
    const end = quote === -1 ? piece.length : quote + 1;
    if (end > i) this.out.push(Buffer.from(piece.subarray(i, end)));
    if (quote !== -1) this.string = { start: this.at + quote + 1, head: [], headBytes: 0, slashes: 0 };
    return end;
  }

  /** Takes the string's contents up to its closing quote (one not escaped by an odd run of backslashes). */
  private inString(piece: Buffer, from: number): number {
    const s = this.string as NonNullable<LineCutter['string']>;
    for (let quote = piece.indexOf(0x22, from); quote !== -1; quote = piece.indexOf(0x22, quote + 1)) {
      let slashes = 0;
      while (quote - 1 - slashes >= from && piece[quote - 1 - slashes] === 0x5c) slashes += 1;
      if (quote - slashes === from) slashes += s.slashes;
      if (slashes % 2 === 1) continue;
      this.take(piece, from, quote);
      this.close(this.at + quote);
      return quote + 1;
    }
    this.take(piece, from, piece.length);
    let run = 0;
    while (piece.length - 1 - run >= from && piece[piece.length - 1 - run] === 0x5c) run += 1;
    s.slashes = run === piece.length - from ? s.slashes + run : run;
    return piece.length;
  }

  /** Keeps the first `keep + 1` bytes of the string's contents (one more than kept: cutPoint looks at it). */
  private take(piece: Buffer, from: number, to: number): void {
    const s = this.string as NonNullable<LineCutter['string']>;
    const room = this.options.keep + 1 - s.headBytes;
    if (room <= 0 || to <= from) return;
    const part = Buffer.from(piece.subarray(from, Math.min(to, from + room)));
    s.head.push(part);
    s.headBytes += part.length;
  }

  private close(end: number): void {
    const s = this.string as NonNullable<LineCutter['string']>;
    this.string = undefined;
    if (end - s.start <= this.options.keep) this.out.push(...s.head, Buffer.from('"'));
    else this.closed = { start: s.start, end, head: Buffer.concat(s.head), gap: [] };
  }

  /** A long string that closed: whole when it is a key, else cut with the note. */
  private decide(key: boolean): void {
    const { start, end, head, gap } = this.closed as Closed;
    this.closed = undefined;
    if (key) this.out.push(this.options.reread(start, end));
    else {
      const stop = cutPoint(head, 0, this.options.keep);
      this.out.push(head.subarray(0, stop), Buffer.from(JSON.stringify(this.options.note(end - start - stop)).slice(1, -1)));
      this.cut = true;
    }
    this.out.push(Buffer.from('"'), Buffer.from(gap));
  }
}

/** `json` with its long strings cut, or `undefined` when none is longer than `keep` bytes. */
export function cutLongStrings(json: Buffer, keep: number, note: (left: number) => string): string | undefined {
  const cutter = new LineCutter({ keep, note, reread: (start, end) => json.subarray(start, end) });
  cutter.feed(json);
  const text = cutter.finish();
  return cutter.cut ? text : undefined;
}

/** `stop`, moved back to the start of a UTF-8 character or an escape (`\n`, `\u00e9`) that it would cut. */
function cutPoint(json: Buffer, start: number, stop: number): number {
  let at = stop;
  while (at > start && ((json[at] as number) & 0xc0) === 0x80) at -= 1;
  for (let back = 1; back <= 5 && at - back >= start; back++) {
    const slash = at - back;
    if (json[slash] !== 0x5c) continue;
    let run = 1;
    while (slash - run >= start && json[slash - run] === 0x5c) run += 1;
    if (run % 2 === 0) break; // an escaped backslash: no escape starts here
    const length = json[slash + 1] === 0x75 ? 6 : 2;
    return slash + length > at ? slash : at;
  }
  return at;
}
