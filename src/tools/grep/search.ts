/**
 * Searching one file's text as ripgrep does for Claude Code's Grep, and writing its lines as rg prints them: a match
 * `PATH:N:text`, a context line `PATH-N-text`, `--` between groups that do not touch, `-o` one match a line, a line
 * over 500 bytes replaced (`--max-columns 500`). Not in multiline mode a match never spans lines.
 */

export interface SearchSpec {
  regex: RegExp;
  multiline: boolean;
  lineNumbers: boolean;
  onlyMatching: boolean;
  before: number;
  after: number;
}

export interface FileHits {
  /** Lines that match (0-based), in order. */
  matchLines: number[];
  /** For `-o`: the matched parts by line. */
  parts: Map<number, string[]>;
  lines: string[];
}

/** The matches of `spec` in `text`, or null when it has none. */
export function searchText(text: string, spec: SearchSpec): FileHits | null {
  spec.regex.lastIndex = 0;
  if (!spec.regex.test(text)) return null;
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const hits = spec.multiline ? multilineHits(text, lines, spec.regex) : lineHits(lines, spec.regex, spec.onlyMatching);
  return hits.matchLines.length === 0 ? null : hits;
}

function lineHits(lines: string[], regex: RegExp, onlyMatching: boolean): FileHits {
  const matchLines: number[] = [];
  const parts = new Map<number, string[]>();
  lines.forEach((line, i) => {
    regex.lastIndex = 0;
    if (!regex.test(line)) return;
    matchLines.push(i);
    if (onlyMatching) parts.set(i, matchesOf(line, regex));
  });
  return { matchLines, parts, lines };
}

function multilineHits(text: string, lines: string[], regex: RegExp): FileHits {
  const starts: number[] = [];
  for (let at = 0, i = 0; i < lines.length; i++) {
    starts.push(at);
    at += (lines[i] as string).length + 1;
  }
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const marked = new Set<number>();
  regex.lastIndex = 0;
  for (let m = regex.exec(text); m !== null; m = regex.exec(text)) {
    if (m[0] === '') {
      regex.lastIndex++;
      continue;
    }
    const end = m.index + m[0].length - (m[0].endsWith('\n') ? 1 : 0);
    for (let l = lineOf(m.index); l <= lineOf(Math.max(m.index, end - 1)); l++) marked.add(l);
  }
  return { matchLines: [...marked].sort((a, b) => a - b), parts: new Map(), lines };
}

function matchesOf(line: string, regex: RegExp): string[] {
  const out: string[] = [];
  regex.lastIndex = 0;
  for (let m = regex.exec(line); m !== null; m = regex.exec(line)) {
    if (m[0] === '') {
      regex.lastIndex++;
      continue;
    }
    out.push(m[0]);
  }
  return out;
}

/** The output lines of one file's hits: `prefix` is the path with nothing after it ('' for a single file). */
export function contentLines(hits: FileHits, spec: SearchSpec, prefix: string): string[] {
  const out: string[] = [];
  const matched = new Set(hits.matchLines);
  const shown = new Set<number>();
  for (const i of hits.matchLines) {
    for (let j = Math.max(0, i - spec.before); j <= Math.min(hits.lines.length - 1, i + spec.after); j++) shown.add(j);
  }
  let last = -2;
  for (const i of [...shown].sort((a, b) => a - b)) {
    if (last !== -2 && i !== last + 1 && spec.before + spec.after > 0) out.push('--');
    last = i;
    const isMatch = matched.has(i);
    if (spec.onlyMatching && !isMatch) continue;
    const sep = isMatch ? ':' : '-';
    const head = `${prefix === '' ? '' : prefix + sep}${spec.lineNumbers ? `${i + 1}${sep}` : ''}`;
    const line = hits.lines[i] as string;
    if (spec.onlyMatching) for (const part of hits.parts.get(i) ?? []) out.push(head + part);
    else out.push(head + shownLine(line, isMatch, spec.regex));
  }
  return out;
}

const MAX_COLUMNS = 500;

function shownLine(line: string, isMatch: boolean, regex: RegExp): string {
  if (line.length <= MAX_COLUMNS / 3 || Buffer.byteLength(line) <= MAX_COLUMNS) return line;
  return isMatch ? `[Omitted long line with ${matchesOf(line, regex).length} matches]` : '[Omitted long context line]';
}

/** A JavaScript RegExp for a ripgrep (Rust) pattern: `(?i)` and `(?P<name>` read, `g` and `m` always. */
export function ripgrepRegex(pattern: string, ignoreCase: boolean, multiline: boolean): RegExp {
  let source = pattern;
  let insensitive = ignoreCase;
  if (source.startsWith('(?i)')) {
    source = source.slice(4);
    insensitive = true;
  }
  source = source.replaceAll('(?P<', '(?<');
  const flags = `gm${insensitive ? 'i' : ''}${multiline ? 's' : ''}`;
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    return new RegExp(source, flags);
  }
}
