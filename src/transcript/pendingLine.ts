/**
 * A line of a transcript being read in pieces (reader.ts), for as long as its end has not been read: its pieces
 * are kept until it is long (`longLineBytes`), then fed to a `LineCutter` (cutJson.ts), which keeps only its
 * structure and the first bytes of each long string. So the reader holds at most one chunk of the file, a short
 * line, and what a long line keeps, never a long line whole.
 */
import { LineCutter, type CutterOptions } from './cutJson.js';

export class PendingLine {
  private pieces: Buffer[] = [];
  private cutter: LineCutter | undefined;
  /** Bytes of the line taken so far. */
  bytes = 0;

  constructor(
    /** Where the line starts in the file. */
    readonly offset: number,
    private readonly longLineBytes: number,
    /** `reread` reads `length` bytes at `offset` of the file. */
    private readonly options: Omit<CutterOptions, 'reread'> & { reread: (offset: number, length: number) => Buffer },
  ) {}

  /** The next piece of the line (copied: the caller reuses its buffer). */
  add(piece: Buffer): void {
    this.bytes += piece.length;
    if (this.cutter) return this.cutter.feed(piece);
    this.pieces.push(Buffer.from(piece));
    if (this.bytes <= this.longLineBytes) return;
    const { keep, note, reread } = this.options;
    this.cutter = new LineCutter({ keep, note, reread: (start, end) => reread(this.offset + start, end - start) });
    for (const held of this.pieces) this.cutter.feed(held);
    this.pieces = [];
  }

  /** The line's text as it is parsed (its long strings cut), and whether any was cut. */
  finish(): [text: string, cut: boolean] {
    if (!this.cutter) return [Buffer.concat(this.pieces).toString('utf8'), false];
    const text = this.cutter.finish();
    return [text, this.cutter.cut];
  }
}
