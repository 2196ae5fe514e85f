/**
 * Reading a slice of a text file's lines without holding more of it than the slice: the file streams through, lines
 * are counted, and only those from `start` (0-based) up to `limit` of them are kept. Lines are split on `\n` as
 * Claude Code splits them (a file `a\n` has two lines, the second empty); a UTF-8 BOM at the start is dropped.
 */
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

export interface LineSlice {
  /** The kept lines joined with `\n`. */
  content: string;
  /** How many lines were kept. */
  lineCount: number;
  /** Lines in the whole file. */
  totalLines: number;
  totalBytes: number;
}

export async function readLineSlice(path: string, start: number, limit: number | undefined, signal?: AbortSignal): Promise<LineSlice> {
  const end = limit === undefined ? Infinity : start + limit;
  const kept: string[] = [];
  const decoder = new StringDecoder('utf8');
  let line = 0;
  let partial = '';
  let totalBytes = 0;
  let first = true;
  const take = (text: string) => {
    let from = 0;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', from)) {
      if (line >= start && line < end) kept.push(withoutCr(partial + text.slice(from, at)));
      partial = '';
      line++;
      from = at + 1;
    }
    // The rest of an unfinished line is kept only while it may be in the slice.
    if (line >= start && line < end) partial += text.slice(from);
  };
  const stream = createReadStream(path, { highWaterMark: 1 << 20, ...(signal ? { signal } : {}) });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    totalBytes += chunk.length;
    let text = decoder.write(chunk);
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    take(text);
  }
  take(decoder.end());
  if (line >= start && line < end) kept.push(partial);
  return { content: kept.join('\n'), lineCount: kept.length, totalLines: line + 1, totalBytes };
}

/** A line read from a CRLF file: its `\r` left out, as Claude Code reads it. */
function withoutCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** Claude Code's numbered lines: `N\tline` from `startLine`, a `\r` at a line's end left out. */
export function numbered(content: string, startLine: number): string {
  if (content === '') return '';
  return content
    .split('\n')
    .map((text, i) => `${startLine + i}\t${text.endsWith('\r') ? text.slice(0, -1) : text}`)
    .join('\n');
}
