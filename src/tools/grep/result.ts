/**
 * Grep's answer, as Claude Code 2.1.197 writes it from rg's output: the lines cut by `offset` and `head_limit` (250
 * when not given, 0 for all), paths relative to the working directory (in content lines only the part before the first
 * colon is rewritten, as Claude Code does), the `tool_use_result` object of each mode, and the text the model reads.
 */
import { stat } from 'node:fs/promises';
import type { ToolOutput } from '../../core/tool.js';

export interface GrepInput {
  pattern: string;
  path?: string;
  glob?: string;
  output_mode?: 'content' | 'files_with_matches' | 'count';
  '-B'?: number;
  '-A'?: number;
  '-C'?: number;
  context?: number;
  '-n'?: boolean;
  '-i'?: boolean;
  '-o'?: boolean;
  type?: string;
  head_limit?: number;
  offset?: number;
  multiline?: boolean;
}

const DEFAULT_HEAD_LIMIT = 250;
/** Claude Code's cap on Grep's result text; past it the text is cut at a line, saying so. */
const MAX_RESULT_CHARS = 20_000;

function page<T>(items: readonly T[], limit: number | undefined, offset: number): { items: T[]; appliedLimit?: number } {
  if (limit === 0) return { items: items.slice(offset) };
  const cap = limit ?? DEFAULT_HEAD_LIMIT;
  const items2 = items.slice(offset, offset + cap);
  return items.length - offset > cap ? { items: items2, appliedLimit: cap } : { items: items2 };
}

function pagination(appliedLimit: number | undefined, offset: number): string {
  return [...(appliedLimit !== undefined ? [`limit: ${appliedLimit}`] : []), ...(offset ? [`offset: ${offset}`] : [])].join(', ');
}

/** What a search found: the grep tool's search fills it, formatResult writes it. */
export interface Found {
  /** Absolute path and its output lines (content), its count (count), in path order. */
  files: { path: string; lines: string[]; count: number }[];
}

export async function formatResult(input: GrepInput, mode: string, found: Found, shown: (path: string) => string): Promise<ToolOutput> {
  const offset = Math.floor(input.offset ?? 0);
  const limit = input.head_limit === undefined ? undefined : Math.floor(input.head_limit);
  const paged = (n: number | undefined) => ({ ...(n !== undefined ? { appliedLimit: n } : {}), ...(offset > 0 ? { appliedOffset: offset } : {}) });
  if (mode === 'content') {
    const all = found.files.flatMap((f) => f.lines).map((line) => rewriteBefore(line, line.indexOf(':'), shown));
    const { items, appliedLimit } = page(all, limit, offset);
    const content = items.join('\n');
    const note = pagination(appliedLimit, offset);
    const text = `${content || 'No matches found'}${note ? `\n\n[Showing results with pagination = ${note}]` : ''}`;
    return { content: capped(text), isError: false, data: { mode: 'content', numFiles: 0, filenames: [], content, numLines: items.length, ...paged(appliedLimit) } };
  }
  if (mode === 'count') {
    const all = found.files.map((f) => `${shown(f.path)}:${f.count}`);
    const { items, appliedLimit } = page(all, limit, offset);
    const counts = items.map((line) => Number(line.slice(line.lastIndexOf(':') + 1)));
    const numMatches = counts.reduce((a, b) => a + b, 0);
    const content = items.join('\n');
    const note = pagination(appliedLimit, offset);
    const text = `${content || 'No matches found'}\n\nFound ${numMatches} total ${numMatches === 1 ? 'occurrence' : 'occurrences'} across ${items.length} ${items.length === 1 ? 'file' : 'files'}.${note ? ` with pagination = ${note}` : ''}`;
    return { content: capped(text), isError: false, data: { mode: 'count', numFiles: items.length, filenames: [], content, numMatches, ...paged(appliedLimit) } };
  }
  const newest = await newestFirst(found.files.map((f) => f.path));
  const { items, appliedLimit } = page(newest, limit, offset);
  const filenames = items.map(shown);
  const data = { mode: 'files_with_matches', filenames, numFiles: filenames.length, ...paged(appliedLimit) };
  if (filenames.length === 0) return { content: 'No files found', isError: false, data };
  const note = pagination(appliedLimit, offset);
  return { content: capped(`Found ${filenames.length} ${filenames.length === 1 ? 'file' : 'files'}${note ? ` ${note}` : ''}\n${filenames.join('\n')}`), isError: false, data };
}

function rewriteBefore(line: string, at: number, shown: (path: string) => string): string {
  return at > 0 ? shown(line.slice(0, at)) + line.slice(at) : line;
}

async function newestFirst(paths: readonly string[]): Promise<string[]> {
  const times = await Promise.all(paths.map((p) => stat(p).then((s) => s.mtimeMs, () => 0)));
  return paths
    .map((path, i) => ({ path, time: times[i] as number }))
    .sort((a, b) => b.time - a.time || a.path.localeCompare(b.path))
    .map((e) => e.path);
}

function capped(text: string): string {
  if (text.length <= MAX_RESULT_CHARS) return text;
  const cut = text.lastIndexOf('\n', MAX_RESULT_CHARS);
  const kept = text.slice(0, cut > 0 ? cut : MAX_RESULT_CHARS);
  return `${kept}\n\n[Output cut at ${kept.length} of ${text.length} characters: narrow the search, or page with head_limit and offset.]`;
}
