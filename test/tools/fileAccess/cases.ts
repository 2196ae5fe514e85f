/**
 * The calls of Claude Code's file tools recorded into claudeCode.json (record.ts) and replayed against agentloop's
 * (fileTools.test.ts): each case a fresh folder with its files, then calls in order; `$CWD` stands for the folder.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RequestBody, Step } from '../../support/messagesServer.js';

export interface FileSpec {
  content?: string;
  /** Bytes, base64. */
  base64?: string;
  /** ISO time of the file's mtime. */
  mtime?: string;
}

export interface Call {
  tool: 'Read' | 'Write' | 'Edit' | 'Glob' | 'Grep';
  input: Record<string, unknown>;
  /** Files (re)written before this call, as a user or a linter would between two turns. */
  before?: Record<string, FileSpec>;
}

export interface FileCase {
  name: string;
  files: Record<string, FileSpec>;
  dirs?: string[];
  calls: Call[];
}

const lines = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i + 1)).join('\n') + '\n';
const wide = (i: number) => `${i}:`.padEnd(100, String.fromCharCode(97 + (i % 26)));
const RED_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==';
const OLD = '2026-01-01T00:00:00Z';
const at = (day: number) => `2026-01-0${day}T00:00:00Z`;

export const CASES: FileCase[] = [
  {
    name: 'read',
    files: {
      'alpha.txt': { content: 'a\n' },
      'alpha.md': { content: '# a\n' },
      'many.txt': { content: lines(3001, (i) => `line ${i}`) },
      'empty.txt': { content: '' },
      'bin.dat': { content: 'a\0b\n' },
      'nul.txt': { content: 'a\0b\n' },
      'crlf.txt': { content: 'one\r\ntwo\r\n' },
      'big.txt': { content: lines(3000, wide) },
      'paged.txt': { content: lines(2000, wide) },
      'red.png': { base64: RED_PNG },
    },
    dirs: ['d'],
    calls: [
      { tool: 'Read', input: { file_path: '$CWD/alpha.txt' } },
      { tool: 'Read', input: { file_path: '$CWD/many.txt', offset: 3, limit: 2 } },
      { tool: 'Read', input: { file_path: '$CWD/nope.txt' } },
      { tool: 'Read', input: { file_path: '$CWD/alpha.json' } },
      { tool: 'Read', input: { file_path: '$CWD/d' } },
      { tool: 'Read', input: { file_path: '$CWD/empty.txt' } },
      { tool: 'Read', input: { file_path: '$CWD/bin.dat' } },
      { tool: 'Read', input: { file_path: '$CWD/nul.txt' } },
      { tool: 'Read', input: { file_path: 'alpha.txt' } },
      { tool: 'Read', input: { file_path: '$CWD/many.txt', offset: 5000 } },
      { tool: 'Read', input: { file_path: '$CWD/big.txt' } },
      { tool: 'Read', input: { file_path: '$CWD/big.txt', offset: 10, limit: 2 } },
      { tool: 'Read', input: { file_path: '$CWD/paged.txt' } },
      { tool: 'Read', input: { file_path: '$CWD/crlf.txt' } },
      { tool: 'Read', input: { file_path: '$CWD/red.png' } },
      { tool: 'Read', input: { file_path: '/dev/zero' } },
      { tool: 'Read', input: { file_path: '$CWD/many.txt', offset: 2999 } },
    ],
  },
  {
    name: 'write',
    files: { 'old.txt': { content: 'old\n' }, 'seen.txt': { content: 'one\ntwo\nthree\n' }, 'moved.txt': { content: 'x\n' } },
    calls: [
      { tool: 'Write', input: { file_path: '$CWD/new.txt', content: 'hello\n' } },
      { tool: 'Write', input: { file_path: '$CWD/sub/dir/deep.txt', content: 'deep' } },
      { tool: 'Write', input: { file_path: '$CWD/old.txt', content: 'overwritten\n' } },
      { tool: 'Read', input: { file_path: '$CWD/seen.txt' } },
      { tool: 'Write', input: { file_path: '$CWD/seen.txt', content: 'one\n2\nthree\n' } },
      { tool: 'Write', input: { file_path: '$CWD/seen.txt', content: 'again\n' } },
      { tool: 'Read', input: { file_path: '$CWD/moved.txt' } },
      { tool: 'Write', input: { file_path: '$CWD/moved.txt', content: 'mine\n' }, before: { 'moved.txt': { content: 'theirs\n', mtime: '2030-01-01T00:00:00Z' } } },
      { tool: 'Write', input: { file_path: '$CWD/new.txt', content: 'hello again\n' } },
    ],
  },
  {
    name: 'edit',
    files: {
      'e.txt': { content: 'alpha\nbeta\nbeta\ngamma\n' },
      'unread.txt': { content: 'x\n' },
      'full.txt': { content: 'x\n' },
      'lines.txt': { content: lines(12, (i) => `l${i}`) },
      'crlf.txt': { content: 'a\r\nb\r\n' },
    },
    calls: [
      { tool: 'Read', input: { file_path: '$CWD/e.txt' } },
      { tool: 'Edit', input: { file_path: '$CWD/e.txt', old_string: 'alpha', new_string: 'ALPHA' } },
      { tool: 'Edit', input: { file_path: '$CWD/e.txt', old_string: 'delta', new_string: 'x' } },
      { tool: 'Edit', input: { file_path: '$CWD/e.txt', old_string: 'beta', new_string: 'BETA' } },
      { tool: 'Edit', input: { file_path: '$CWD/e.txt', old_string: 'beta', new_string: 'BETA', replace_all: true } },
      { tool: 'Edit', input: { file_path: '$CWD/e.txt', old_string: 'gamma', new_string: 'gamma' } },
      { tool: 'Edit', input: { file_path: '$CWD/missing.txt', old_string: 'a', new_string: 'b' } },
      { tool: 'Edit', input: { file_path: '$CWD/unread.txt', old_string: 'x', new_string: 'y' } },
      { tool: 'Edit', input: { file_path: '$CWD/created.txt', old_string: '', new_string: 'made\n' } },
      { tool: 'Edit', input: { file_path: '$CWD/full.txt', old_string: '', new_string: 'y\n' } },
      { tool: 'Read', input: { file_path: '$CWD/lines.txt' } },
      { tool: 'Edit', input: { file_path: '$CWD/lines.txt', old_string: 'l6\nl7\n', new_string: 'six\nseven\nmore\n' } },
      { tool: 'Read', input: { file_path: '$CWD/crlf.txt' } },
      { tool: 'Edit', input: { file_path: '$CWD/crlf.txt', old_string: 'b', new_string: 'B' } },
      { tool: 'Edit', input: { file_path: '$CWD/e.txt', old_string: 'ALPHA', new_string: 'A' }, before: { 'e.txt': { content: 'ALPHA\nchanged\n', mtime: '2030-01-01T00:00:00Z' } } },
    ],
  },
  {
    name: 'glob',
    files: {
      'docs/guide.md': { content: 'the parser guide\n', mtime: at(1) },
      'notes.md': { content: 'todo\nDONE: parser fixed\n', mtime: at(2) },
      'src/a.ts': { content: 'const parser = 1;\nfunction Parser() {}\n', mtime: at(3) },
      'src/b.js': { content: 'Parser\n', mtime: at(4) },
      '.gitignore': { content: 'build/\nsecret.md\n', mtime: at(5) },
      'build/out.md': { content: 'parser out\n', mtime: at(6) },
      'secret.md': { content: 'parser secret\n', mtime: at(7) },
      '.git/hooks/h.md': { content: 'x parser\n', mtime: at(8) },
      ...Object.fromEntries(Array.from({ length: 105 }, (_, i) => [`many/f${String(i).padStart(3, '0')}.txt`, { content: 'x\n', mtime: new Date(Date.parse(OLD) + (i % 7) * 60_000 + i * 1000).toISOString() }])),
    },
    calls: [
      { tool: 'Glob', input: { pattern: '*.md' } },
      { tool: 'Glob', input: { pattern: '**/*.md' } },
      { tool: 'Glob', input: { pattern: 'src/**/*' } },
      { tool: 'Glob', input: { pattern: '*.nothing' } },
      { tool: 'Glob', input: { pattern: '*.md', path: '$CWD/docs' } },
      { tool: 'Glob', input: { pattern: '$CWD/src/*.ts' } },
      { tool: 'Glob', input: { pattern: '*.md', path: '$CWD/nope' } },
      { tool: 'Glob', input: { pattern: '*.md', path: '$CWD/notes.md' } },
      { tool: 'Glob', input: { pattern: 'many/*.txt' } },
    ],
  },
  {
    name: 'grep',
    files: {
      'docs/guide.md': { content: 'the parser guide\n', mtime: at(1) },
      'notes.md': { content: 'todo\nDONE: parser fixed\nmore\nand more\nparser again\n', mtime: at(2) },
      'src/a.ts': { content: 'const parser = 1;\nfunction Parser() {}\n', mtime: at(3) },
      'src/b.js': { content: 'Parser\n', mtime: at(4) },
      '.gitignore': { content: 'build/\nsecret.md\n', mtime: at(5) },
      'build/out.md': { content: 'parser out\n', mtime: at(6) },
      'secret.md': { content: 'parser secret\n', mtime: at(7) },
      '.git/hooks/h.md': { content: 'x parser\n', mtime: at(8) },
      'bin.txt': { content: 'parser\0binary\n', mtime: at(9) },
    },
    calls: [
      { tool: 'Grep', input: { pattern: 'parser' } },
      { tool: 'Grep', input: { pattern: 'parser', output_mode: 'content' } },
      { tool: 'Grep', input: { pattern: 'parser', output_mode: 'count' } },
      { tool: 'Grep', input: { pattern: 'parser', '-i': true, output_mode: 'content', '-n': false } },
      { tool: 'Grep', input: { pattern: 'DONE', output_mode: 'content', '-B': 1 } },
      { tool: 'Grep', input: { pattern: 'DONE', output_mode: 'content', '-A': 1 } },
      { tool: 'Grep', input: { pattern: 'parser', output_mode: 'content', '-C': 1, path: '$CWD/notes.md' } },
      { tool: 'Grep', input: { pattern: 'parser', type: 'ts', output_mode: 'content' } },
      { tool: 'Grep', input: { pattern: 'parser', glob: '*.md' } },
      { tool: 'Grep', input: { pattern: 'parser', glob: '*.md', head_limit: 1 } },
      { tool: 'Grep', input: { pattern: 'parser', output_mode: 'content', head_limit: 1, offset: 1 } },
      { tool: 'Grep', input: { pattern: 'todo.DONE', multiline: true, output_mode: 'content' } },
      { tool: 'Grep', input: { pattern: 'zzz' } },
      { tool: 'Grep', input: { pattern: 'zzz', output_mode: 'content' } },
      { tool: 'Grep', input: { pattern: 'zzz', output_mode: 'count' } },
      { tool: 'Grep', input: { pattern: 'parser', path: '$CWD/notes.md', output_mode: 'content' } },
      { tool: 'Grep', input: { pattern: 'parser', path: 'nope' } },
      { tool: 'Grep', input: { pattern: 'pars', output_mode: 'content', '-o': true } },
      { tool: 'Grep', input: { pattern: 'parser', path: '$CWD/notes.md', output_mode: 'count' } },
      { tool: 'Grep', input: { pattern: 'more', path: '$CWD/notes.md' } },
    ],
  },
];

/** Writes `files` under `dir` (folders made), each with its mtime when given. */
export function writeFiles(dir: string, files: Record<string, FileSpec>): void {
  for (const [path, spec] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, spec.base64 !== undefined ? Buffer.from(spec.base64, 'base64') : (spec.content ?? ''));
    if (spec.mtime !== undefined) utimesSync(full, new Date(spec.mtime), new Date(spec.mtime));
  }
}

/** A case's folder, made fresh. */
export function setUpCase(dir: string, fileCase: FileCase): void {
  for (const sub of fileCase.dirs ?? []) mkdirSync(join(dir, sub), { recursive: true });
  writeFiles(dir, fileCase.files);
}

/** `value` with every string's `$CWD` replaced by `cwd` (or back, with `reverse`). */
export function withCwd<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value).split(from).join(to)) as T;
}

/**
 * The local Messages API server's step for a case: each request that offers tools gets the case's next call (the
 * files of its `before` written first, as a user would between two turns), then a final text.
 */
export function callsInTurn(fileCase: FileCase, cwd: string): Step {
  let next = 0;
  return (body: RequestBody) => {
    if (!body.tools?.length || next >= fileCase.calls.length) return { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' };
    const call = fileCase.calls[next] as Call;
    if (call.before) writeFiles(cwd, call.before);
    const input = withCwd(call.input, '$CWD', cwd);
    return { content: [{ type: 'tool_use', id: `toolu_${fileCase.name}_${next++}`, name: call.tool, input }], stop_reason: 'tool_use' };
  };
}
