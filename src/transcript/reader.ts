/**
 * A transcript read for showing it (the viewer): lazily, as it grows, and with large values cut.
 *
 * Each `read()` reads only the bytes added since the last one (a file replaced or cut shorter is
 * read again from its start), so following a live run costs what the run writes. A record whose
 * line is longer than `longLineBytes` (a 100 MB tool output, say) keeps its shape, but each string
 * in it longer than `keepBytes` is cut to that before the line is parsed (cutJson.ts), with a note
 * of how much is left out and where the whole record is (`lineAt` gives its line, byte for byte):
 * the page gets kilobytes, not the hundred megabytes, and fetches the whole record only when asked.
 */
import { closeSync, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { cutLongStrings } from './cutJson.js';
import { MAX_PROBLEMS, parseRecordLines, type DamagedLine } from './lines.js';
import type { SessionHeader, SessionRecord } from './records.js';

export interface CutRecord {
  /** Its line in the transcript (from 1) and where that line starts, in bytes. */
  line: number;
  offset: number;
  /** The length of its line, in bytes. */
  bytes: number;
}

export interface ReadTranscript {
  header: SessionHeader | undefined;
  records: SessionRecord[];
  problems: string[];
  /** The records whose long strings were cut. */
  cuts: CutRecord[];
  /** The lines of valid JSON that are no record of a known shape (as `Transcript.damaged`). */
  damaged: DamagedLine[];
}

export interface ReaderOptions {
  /** Lines longer than this have their long strings cut (default 256 KiB). */
  longLineBytes?: number;
  /** How much of a long string is kept, in bytes of its JSON (default 16 KiB). */
  keepBytes?: number;
}

export class TranscriptReader {
  private records: SessionRecord[] = [];
  private problems: string[] = [];
  private cuts: CutRecord[] = [];
  private damaged: DamagedLine[] = [];
  /** Bytes read whole (up to the end of the last complete line), the next line's number, the file read. */
  private offset = 0;
  private line = 1;
  private file: { dev: number; ino: number } | undefined;
  private readonly longLineBytes: number;
  private readonly keepBytes: number;

  constructor(
    readonly path: string,
    options: ReaderOptions = {},
  ) {
    this.longLineBytes = options.longLineBytes ?? 256 * 1024;
    this.keepBytes = options.keepBytes ?? 16 * 1024;
  }

  /** The transcript as it is now, reading only what was added since the last call. */
  read(): ReadTranscript {
    const fd = openSync(this.path, 'r');
    let unfinished: string[] = [];
    try {
      const stat = fstatSync(fd);
      if (!this.file || stat.dev !== this.file.dev || stat.ino !== this.file.ino || stat.size < this.offset) this.restart(stat);
      const added = readFrom(fd, this.offset, stat.size - this.offset);
      const end = added.lastIndexOf(0x0a) + 1;
      this.takeLines(added.subarray(0, end));
      // A last line without its newline (being written, or torn by a crash) is read again next time.
      if (end < added.length) unfinished = parseRecordLines(added.toString('utf8', end), { firstLine: this.line }).problems;
    } finally {
      closeSync(fd);
    }
    const header = this.records[0]?.type === 'session' ? this.records[0] : undefined;
    const problems = [...(header ? [] : ['the transcript does not start with a session header']), ...this.problems, ...unfinished];
    return { header, records: this.records, problems, cuts: this.cuts, damaged: this.damaged };
  }

  private restart(stat: { dev: number; ino: number }): void {
    this.file = { dev: stat.dev, ino: stat.ino };
    this.records = [];
    this.problems = [];
    this.cuts = [];
    this.damaged = [];
    this.offset = 0;
    this.line = 1;
  }

  /** Parses whole lines: runs of ordinary ones together, a long one on its own, its long strings cut. */
  private takeLines(bytes: Buffer): void {
    let batch = { start: 0, line: this.line };
    for (let start = 0; start < bytes.length; this.line += 1) {
      const end = bytes.indexOf(0x0a, start) + 1; // `bytes` ends with a newline
      if (end - start >= this.longLineBytes) {
        this.parse(bytes, batch.start, start, batch.line, false);
        this.parse(bytes, start, end, this.line, true);
        batch = { start: end, line: this.line + 1 };
      }
      start = end;
    }
    this.parse(bytes, batch.start, bytes.length, batch.line, false);
    this.offset += bytes.length;
  }

  /** Parses the lines from `start` to `end`; a long one with its long strings cut first (cutJson.ts). */
  private parse(bytes: Buffer, start: number, end: number, firstLine: number, long: boolean): void {
    if (end <= start) return;
    const note = (left: number) => `… [cut here: ${left.toLocaleString('en-US')} more bytes of JSON; the whole record is line ${firstLine} of the transcript]`;
    const cut = long ? cutLongStrings(bytes.subarray(start, end - 1), this.keepBytes, note) : undefined;
    if (cut !== undefined) this.cuts.push({ line: firstLine, offset: this.offset + start, bytes: end - start - 1 });
    const parsed = parseRecordLines(cut ?? bytes.toString('utf8', start, end), { firstLine });
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(...parsed.problems.slice(0, MAX_PROBLEMS - this.problems.length));
    for (const line of parsed.damaged) this.damaged.push({ ...line, after: line.after + this.records.length });
    for (const record of parsed.records) this.records.push(record); // (a spread of 100,000 would overflow the stack)
  }
}

/** The line that starts at byte `offset` of the transcript, as it is in the file (a record's whole JSON). */
export function lineAt(path: string, offset: number): Readable {
  let done = false;
  const untilNewline = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (done) return callback();
      const end = chunk.indexOf(0x0a);
      if (end === -1) return callback(null, chunk);
      done = true;
      callback(null, chunk.subarray(0, end));
      source.destroy();
      this.push(null);
    },
  });
  const source = createReadStream(path, { start: offset });
  source.on('error', (error) => untilNewline.destroy(error));
  return source.pipe(untilNewline);
}

function readFrom(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(Math.max(0, length));
  let read = 0;
  while (read < buffer.length) {
    const n = readSync(fd, buffer, read, buffer.length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}
