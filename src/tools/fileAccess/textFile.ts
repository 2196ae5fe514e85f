/**
 * A text file as Write and Edit read and write it: UTF-8 (UTF-16 LE when it starts with that BOM), CRLF line endings
 * read as `\n` and written back as they were; the diff of a change as Claude Code reports it (jsdiff's structured
 * patch, 3 lines of context).
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { structuredPatch } from './packages.js';

export interface TextFile {
  /** The content with `\r\n` read as `\n`. */
  content: string;
  encoding: 'utf8' | 'utf16le';
  crlf: boolean;
}

export async function readTextFile(path: string): Promise<TextFile> {
  const bytes = await readFile(path);
  const encoding = bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf16le' : 'utf8';
  const raw = bytes.toString(encoding);
  return { content: raw.replaceAll('\r\n', '\n'), encoding, crlf: raw.includes('\r\n') };
}

/** Writes `content` (folders made as needed) and answers the file's mtime (ms, floored) after the write. */
export async function writeTextFile(path: string, content: string, like?: Pick<TextFile, 'encoding' | 'crlf'>): Promise<number> {
  await mkdir(dirname(path), { recursive: true });
  const text = like?.crlf ? content.replaceAll('\r\n', '\n').split('\n').join('\r\n') : content;
  await writeFile(path, text, { encoding: like?.encoding ?? 'utf8' });
  return Math.floor((await stat(path)).mtimeMs);
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** The hunks from `before` to `after`, as Claude Code's `structuredPatch` field holds them. */
export function patchOf(path: string, before: string, after: string): Hunk[] {
  const patch = structuredPatch(path, before, after, { context: 3 });
  return patch.hunks.map(({ oldStart, oldLines, newStart, newLines, lines }) => ({ oldStart, oldLines, newStart, newLines, lines }));
}
