/**
 * A transcript read for showing it (the viewer): lazily, as it grows, and with large values cut.
 *
 * Each `read()` reads only the bytes added since the last one (a file replaced or cut shorter is
 * read again from its start), so following a live run costs what the run writes. A record whose
 * line is longer than `longLineBytes` (a 100 MB tool output, say) keeps its shape, but each string
 * in it longer than `keepBytes` is cut to that before the line is parsed (cutJson.ts), with a note
 * of how much is left out and where the whole record is (`lineAt` gives its line, byte for byte):
 * the page gets kilobytes, not the hundred megabytes, and fetches the whole record only when asked.
 * The file is read once, a chunk at a time (`chunkBytes`), each line parsed as its newline is read: a long line
 * goes through the cutter piece by piece (pendingLine.ts), so the reader never holds it, nor the file, whole.
 */
import { closeSync, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { MAX_PROBLEMS, parseRecordLines, type DamagedLine } from './lines.js';
import { plural } from '../core/plural.js';
import { PendingLine } from './pendingLine.js';
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
  /** The file is read this many bytes at a time (default 1 MiB). */
  chunkBytes?: number;
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
  private readonly chunkBytes: number;
  /** Unreadable lines past the first `MAX_PROBLEMS`: counted, not listed. */
  private more = 0;

  constructor(
    readonly path: string,
    options: ReaderOptions = {},
  ) {
    this.longLineBytes = options.longLineBytes ?? 256 * 1024;
    this.keepBytes = options.keepBytes ?? 16 * 1024;
    this.chunkBytes = options.chunkBytes ?? 2 ** 20;
  }

  /** The transcript as it is now, reading only what was added since the last call. */
  read(): ReadTranscript {
    const fd = openSync(this.path, 'r');
    let read: ReadTranscript;
    try {
      const stat = fstatSync(fd);
      if (!this.file || stat.dev !== this.file.dev || stat.ino !== this.file.ino || stat.size < this.offset) this.restart(stat);
      read = this.withLast(this.readLines(fd, stat.size));
    } finally {
      closeSync(fd);
    }
    const listed = read.problems;
    const more = this.more + Math.max(0, listed.length - MAX_PROBLEMS);
    const problems = [...(read.header ? [] : ['the transcript does not start with a session header']), ...listed.slice(0, MAX_PROBLEMS)];
    if (more > 0) problems.push(`${plural(more, 'more unreadable line')} skipped`);
    return { ...read, problems };
  }

  /**
   * What was read, with the last line when it has no newline yet (being written, or torn by a crash): shown as
   * it is now (a problem when it is not whole JSON) and read again next time.
   */
  private withLast(last: PendingLine | undefined): ReadTranscript {
    const header = this.records[0]?.type === 'session' ? this.records[0] : undefined;
    const read = { header, records: this.records, problems: this.problems, cuts: this.cuts, damaged: this.damaged };
    if (!last) return read;
    const [text, cut] = last.finish();
    const tail = parseRecordLines(text, { firstLine: this.line });
    return {
      header: header ?? (tail.records[0]?.type === 'session' && this.records.length === 0 ? tail.records[0] : undefined),
      records: tail.records.length > 0 ? [...this.records, ...tail.records] : this.records,
      problems: [...this.problems, ...tail.problems],
      cuts: cut ? [...this.cuts, { line: this.line, offset: last.offset, bytes: last.bytes }] : this.cuts,
      damaged: tail.damaged.length > 0 ? [...this.damaged, ...tail.damaged.map((d) => ({ ...d, after: d.after + this.records.length }))] : this.damaged,
    };
  }

  private restart(stat: { dev: number; ino: number }): void {
    this.file = { dev: stat.dev, ino: stat.ino };
    this.records = [];
    this.problems = [];
    this.cuts = [];
    this.damaged = [];
    this.more = 0;
    this.offset = 0;
    this.line = 1;
  }

  /**
   * Reads the file from the end of its last whole line to `size`, one chunk at a time, in one pass: whole lines
   * are parsed as their newline is read; the last line, when it has no newline yet, is returned unparsed.
   */
  private readLines(fd: number, size: number): PendingLine | undefined {
    const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(this.chunkBytes, size - this.offset)));
    let line: PendingLine | undefined;
    for (let position = this.offset; position < size; ) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, size - position), position);
      if (n === 0) break;
      let start = 0;
      for (let newline = chunk.indexOf(0x0a); newline !== -1 && newline < n; newline = chunk.indexOf(0x0a, start)) {
        if (!line && newline - start <= this.longLineBytes) this.take(chunk.toString('utf8', start, newline), false, position + start, newline - start);
        else {
          line ??= this.pending(fd, position + start);
          line.add(chunk.subarray(start, newline));
          this.take(...line.finish(), line.offset, line.bytes);
          line = undefined;
        }
        start = newline + 1;
      }
      if (start < n) (line ??= this.pending(fd, position + start)).add(chunk.subarray(start, n));
      position += n;
    }
    return line;
  }

  private pending(fd: number, offset: number): PendingLine {
    const line = this.line;
    const note = (left: number) => `… [cut here: ${left.toLocaleString('en-US')} more bytes of JSON; the whole record is line ${line} of the transcript]`;
    return new PendingLine(offset, this.longLineBytes, { keep: this.keepBytes, note, reread: (at, length) => readFrom(fd, at, length) });
  }

  /** Parses a whole line (`text`: as read, or with its long strings cut), `bytes` long at `offset` of the file. */
  private take(text: string, cut: boolean, offset: number, bytes: number): void {
    if (cut) this.cuts.push({ line: this.line, offset, bytes });
    const parsed = parseRecordLines(`${text}\n`, { firstLine: this.line });
    for (const problem of parsed.problems) {
      if (this.problems.length < MAX_PROBLEMS) this.problems.push(problem);
      else this.more += 1;
    }
    for (const damaged of parsed.damaged) this.damaged.push({ ...damaged, after: damaged.after + this.records.length });
    for (const record of parsed.records) this.records.push(record);
    this.offset = offset + bytes + 1;
    this.line += 1;
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
