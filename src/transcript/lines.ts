/**
 * Transcript text to records: each line is one record as JSON; a line that is not valid JSON or not
 * a record of a known shape (shapes.ts) is reported and skipped. Used for whole transcripts
 * (store.ts) and for pieces of them (the ends that headers.ts reads).
 */
import { plural } from '../core/plural.js';
import type { SessionHeader, SessionRecord } from './records.js';
import { recordProblem } from './shapes.js';

/** A transcript as read: its header, its records, what could not be read (store.ts reads one). */
export interface Transcript {
  path: string;
  header: SessionHeader | undefined;
  /** The records that are whole and of a known shape (shapes.ts), in file order. */
  records: SessionRecord[];
  /**
   * Lines that could not be read, e.g. `line 12: not valid JSON (cut off by a crash?): skipped`
   * or `line 7: message record: index: 1000000000 is beyond the 7 lines read so far: skipped`;
   * at most `MAX_PROBLEMS`, then a count of the rest.
   */
  problems: string[];
  /**
   * The lines of valid JSON that are not a record of a known shape, as read: skipped by everything
   * that trusts the records (resume), but kept for a reader that shows what a run wrote, broken
   * records included (the viewer marks a tool_result written without its tool_use_id).
   */
  damaged: DamagedLine[];
}

export const MAX_PROBLEMS = 20;

export interface ParsedLines {
  records: SessionRecord[];
  /** At most `MAX_PROBLEMS`, then a count of the rest. */
  problems: string[];
  /** The lines of valid JSON that are no record of a known shape (kept for a reader that shows them). */
  damaged: DamagedLine[];
}

/** A line of valid JSON that is not a record of a known shape, as read. */
export interface DamagedLine {
  /** 1-based line number (of the piece read, when the text's first line number is not known). */
  line: number;
  /** How many whole records come before it: where it stands among `records`. */
  after: number;
  value: unknown;
  /** What is wrong with it, as in `problems`. */
  problem: string;
}

export interface LinesOptions {
  /** The line number of the text's first line; `undefined`: not known (a piece from the end of a file). */
  firstLine?: number;
  /** Each record, as it is read (the records are not kept when given). */
  onRecord?: (record: SessionRecord, line: number) => void;
}

/** Parses lines of transcript text; the last one is "unfinished" when the text does not end with a newline. */
export function parseRecordLines(text: string, options: LinesOptions = {}): ParsedLines {
  const records: SessionRecord[] = [];
  const problems: string[] = [];
  const damaged: DamagedLine[] = [];
  const known = options.firstLine !== undefined;
  let more = 0;
  const report = (problem: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(problem);
    else more += 1;
  };
  let start = 0;
  for (let line = options.firstLine ?? 1; start < text.length; line++) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const raw = text.slice(start, end);
    start = end + 1;
    if (raw.trim() === '') continue;
    const where = newline === -1 ? (known ? `line ${line} (the last, unfinished)` : 'the last line (unfinished)') : known ? `line ${line}` : 'a line near the end';
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      report(`${where}: not valid JSON (cut off by a crash?): skipped`);
      continue;
    }
    // A line whose number is not known may hold any message index (shapes.ts checks it against the line).
    const problem = recordProblem(value, known ? line : Number.MAX_SAFE_INTEGER);
    if (problem !== undefined) {
      report(`${where}: ${problem.length > 200 ? `${problem.slice(0, 200)}...` : problem}: skipped`);
      damaged.push({ line, after: records.length, value, problem });
    } else if (options.onRecord) options.onRecord(value as SessionRecord, line);
    else records.push(value as SessionRecord);
  }
  if (more > 0) problems.push(`${plural(more, 'more unreadable line')} skipped`);
  return { records, problems, damaged };
}
