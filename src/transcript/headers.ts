/**
 * Reading the ends of transcripts only, so that finding and listing sessions costs what it reads,
 * not the size of the home: a session's first line (its header, with the working directory that
 * `--continue` looks for) and the first question beside it, and its last records (how its last run
 * ended). Nothing here is a second source of truth: every answer is read from the transcripts and
 * their modification times, as they are now.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { parseRecordLines } from './lines.js';
import { sessionsDir } from './paths.js';
import type { SessionHeader, SessionRecord } from './records.js';
import { recordProblem } from './shapes.js';

/** Bytes read from the start of a transcript for its header and first question (the first write holds both). */
export const HEADER_BYTES = 4 * 1024;
/** Bytes read from the start of a transcript for its first records (`agentloop sessions`). */
export const HEAD_BYTES = 16 * 1024;
/** Bytes read from the end of a transcript for its last records. */
export const TAIL_BYTES = 16 * 1024;
/** The longest header line looked for (a header is a few hundred bytes; a longer first line is no header). */
const MAX_HEADER_BYTES = 256 * 1024;

/** A transcript of the sessions folder, its stat, and whether a lock file is beside it (lock.ts). */
export interface TranscriptFile {
  path: string;
  name: string;
  stat: Stats;
  locked: boolean;
}

/** The transcripts of `home`, the most recently modified first (one `stat` each, nothing read). */
export function transcriptsByNewest(home: string): TranscriptFile[] {
  const dir = sessionsDir(home);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const files: TranscriptFile[] = [];
  const locks = new Set(names.filter((name) => name.endsWith('.lock')));
  for (const name of names) {
    if (!name.endsWith('.jsonl')) continue;
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isFile()) files.push({ path, name, stat, locked: locks.has(`${name.slice(0, -'.jsonl'.length)}.lock`) });
  }
  return files.sort((a, b) => b.stat.mtimeMs - a.stat.mtimeMs || (a.path < b.path ? 1 : -1));
}

/** The header of the transcript at `path`, from its first line alone; `undefined` if it has none. */
export function readHeader(path: string): SessionHeader | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    for (let bytes = 4096; ; bytes *= 4) {
      const text = readText(fd, 0, bytes);
      const end = text.indexOf('\n');
      if (end !== -1 || text.length < bytes || bytes >= MAX_HEADER_BYTES) return headerOf(end === -1 ? text : text.slice(0, end));
    }
  } finally {
    closeSync(fd);
  }
}

function headerOf(line: string): SessionHeader | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return recordProblem(value, 1) === undefined && (value as SessionRecord).type === 'session' ? (value as SessionHeader) : undefined;
  } catch {
    return undefined;
  }
}

/** What the ends of a transcript hold: its first records (the header first) and its last ones. */
export interface TranscriptEnds {
  header: SessionHeader | undefined;
  /** The records read, in file order: all of them when `whole`, else those of the head, then those of the tail. */
  records: SessionRecord[];
  problems: string[];
  /** The whole file was read. */
  whole: boolean;
  /** The last line is longer than `TAIL_BYTES`, so none of the tail's records was read whole. */
  longLastLine: boolean;
  /** The start of the first question when its line did not fit in the head. */
  promptStart: string | undefined;
  stat: Stats;
}

/**
 * Reads the head of a transcript (`HEAD_BYTES` with `tail`, else `HEADER_BYTES`) and, with `tail`, its
 * end (`TAIL_BYTES`); a file no longer than both together is read whole.
 */
export function readEnds(path: string, tail: boolean): TranscriptEnds {
  const fd = openSync(path, 'r');
  try {
    const stat = fstatSync(fd);
    const headBytes = tail ? HEAD_BYTES : HEADER_BYTES;
    const whole = stat.size <= headBytes + (tail ? TAIL_BYTES : 0);
    let head = readBytes(fd, 0, whole ? stat.size : headBytes);
    // A first line longer than the head (a long working directory) is read on, as far as a header can be.
    for (let n = headBytes * 4; !whole && head.indexOf(0x0a) === -1 && head.length < stat.size && n <= MAX_HEADER_BYTES * 4; n *= 4) {
      head = readBytes(fd, 0, Math.min(n, stat.size));
    }
    const headEnd = whole ? head.length : head.lastIndexOf(0x0a) + 1; // the records whole in the head
    const first = parseRecordLines(head.toString('utf8', 0, headEnd), { firstLine: 1 });
    const rest = head.toString('utf8', headEnd);
    const ends: TranscriptEnds = { header: undefined, ...first, whole, longLastLine: false, promptStart: promptStart(rest), stat };
    if (first.records[0]?.type === 'session') ends.header = first.records[0];
    if (whole || !tail) return ends;
    const from = Math.max(headEnd, stat.size - TAIL_BYTES);
    const end = readBytes(fd, from, stat.size - from);
    // A piece that starts inside a line skips it (its start is not read).
    const cut = from === headEnd ? -1 : end.indexOf(0x0a);
    ends.longLastLine = from !== headEnd && (cut === -1 || cut === end.length - 1);
    const last = parseRecordLines(end.toString('utf8', cut + 1));
    ends.records.push(...last.records);
    ends.problems.push(...last.problems);
    return ends;
  } finally {
    closeSync(fd);
  }
}

/** The text of a prompt record's first part, from a line cut off at the end of the head. */
function promptStart(rest: string): string | undefined {
  const match = /^\{"type":"prompt",(?:"at":"[^"]*",)?"text":"((?:[^"\\]|\\.)*)/.exec(rest);
  if (!match) return undefined;
  const body = (match[1] as string).replace(/\\u[0-9a-fA-F]{0,3}$|\\$/, '');
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return undefined;
  }
}

function readText(fd: number, position: number, length: number): string {
  return readBytes(fd, position, length).toString('utf8');
}

function readBytes(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const n = readSync(fd, buffer, read, length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}
