/**
 * Grep: a regular expression over the files of a folder (or one file), as Claude Code 2.1.197's (ripgrep with
 * `--hidden`, `.git` and the other version-control folders left out, `--max-columns 500`), answered in its three modes
 * and words: files_with_matches ("Found N files", newest first), content (`path:N:text`, -A/-B/-C, -n, -o) and count,
 * with `head_limit` (250 by default, 0 for all) and `offset`. The ignore files are honoured (walk.ts); what the guard
 * hides is never searched.
 *
 * Why not ripgrep itself: Claude Code ships its own rg binary; agentloop downloads no binary at install time, and
 * Debian's ripgrep may be missing. The search is in this process: a parallel walk, a cheap test of each file's whole
 * text before its lines are split, files with a NUL byte skipped as rg skips binary files. bench/grep.ts measures it
 * against `rg` on node_modules (BENCHMARKS.md).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Tool, ToolContext, ToolOutput } from '../../core/tool.js';
import { globList, splitGlobField } from '../fileAccess/globs.js';
import { checkFields } from '../fileAccess/input.js';
import { callError, CWD_NOTE, errnoCode, resolvePath, shownPath, toolUseError } from '../fileAccess/paths.js';
import { pathPermission, readDenials } from '../fileAccess/permission.js';
import { pathField, textField, type FileToolsShared } from '../fileAccess/shared.js';
import { walkFiles } from '../fileAccess/walk.js';
import { similarFile } from '../read/similar.js';
import { formatResult, type Found, type GrepInput } from './result.js';
import { DESCRIPTION, INPUT_SCHEMA } from './schema.js';
import { contentLines, ripgrepRegex, searchText, type SearchSpec } from './search.js';
import { typeGlobs } from './types.js';

const FIELDS = {
  pattern: { kind: 'string', required: true },
  path: { kind: 'string' },
  glob: { kind: 'string' },
  output_mode: { kind: 'string', oneOf: ['content', 'files_with_matches', 'count'] },
  '-B': { kind: 'number', min: 0 },
  '-A': { kind: 'number', min: 0 },
  '-C': { kind: 'number', min: 0 },
  context: { kind: 'number', min: 0 },
  '-n': { kind: 'boolean' },
  '-i': { kind: 'boolean' },
  '-o': { kind: 'boolean' },
  type: { kind: 'string' },
  head_limit: { kind: 'number', min: 0 },
  offset: { kind: 'number', min: 0 },
  multiline: { kind: 'boolean' },
} as const;

/** Folders of version control, never searched (Claude Code passes `--glob !NAME` for each). */
const VCS = ['.git', '.svn', '.hg', '.bzr', '.jj', '.sl'];
/** Files larger than this are not searched (read whole into memory otherwise). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** The longest the search holds the event loop before it yields. */
const SLICE_MS = 8;

export function createGrepTool(shared: FileToolsShared): Tool {
  return {
    name: 'Grep',
    publicName: 'Grep',
    description: DESCRIPTION,
    inputSchema: INPUT_SCHEMA,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    permission: pathPermission({ tool: 'Read', ruleNames: ['Read'], searches: true, pathOf: (i) => pathField(i, 'path'), edits: false, cwd: shared.cwd, home: shared.home }),
    display: { call: (input) => `Grep "${textField(input, 'pattern')}"${pathField(input, 'path') ? ` in ${pathField(input, 'path')}` : ''}` },
    async run(input, context) {
      const checked = checkFields<GrepInput>('Grep', input, FIELDS);
      if ('problem' in checked) return toolUseError(checked.problem);
      return grep(shared, checked.value, context);
    },
  };
}

async function grep(shared: FileToolsShared, input: GrepInput, context: ToolContext): Promise<ToolOutput> {
  if ([input.pattern, input.path, input.glob, input.type].some((v) => v?.includes('\0'))) return toolUseError('Grep pattern cannot contain null bytes (\\0). Remove the null byte and try again.');
  const root = input.path === undefined ? context.cwd : resolvePath(input.path, context.cwd, shared.home);
  let isFile = false;
  try {
    isFile = (await stat(root)).isFile();
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') return callError(`Cannot search ${input.path}: ${errnoCode(error) ?? 'unreadable'}`);
    const similar = await similarFile(root, context.cwd);
    return toolUseError(`Path does not exist: ${input.path}. ${CWD_NOTE} ${context.cwd}.${similar ? ` Did you mean ${similar}?` : ''}`);
  }
  const refused = shared.guard.readReason(root, context.cwd);
  if (refused !== null) return toolUseError(refused);
  const mode = input.output_mode ?? 'files_with_matches';
  let spec: SearchSpec;
  try {
    spec = searchSpec(input, mode);
  } catch (error) {
    return callError(`regex parse error: ${error instanceof Error ? error.message : String(error)}`);
  }
  const files = isFile ? [root] : await filesToSearch(shared, input, root, context);
  if (typeof files === 'string') return callError(files);
  const found = await searchFiles(files, spec, mode, isFile, context.signal);
  return formatResult(input, mode, found, (p) => shownPath(p, context.cwd));
}

function searchSpec(input: GrepInput, mode: string): SearchSpec {
  const context = input.context ?? input['-C'];
  return {
    regex: ripgrepRegex(input.pattern, input['-i'] === true, input.multiline === true),
    multiline: input.multiline === true,
    lineNumbers: mode === 'content' && input['-n'] !== false,
    onlyMatching: mode === 'content' && input['-o'] === true,
    before: mode === 'content' ? Math.floor(context ?? input['-B'] ?? 0) : 0,
    after: mode === 'content' ? Math.floor(context ?? input['-A'] ?? 0) : 0,
  };
}

/** The files of the walk, or why there are none to search (an unknown type). */
async function filesToSearch(shared: FileToolsShared, input: GrepInput, root: string, context: ToolContext): Promise<string[] | string> {
  const patterns = [...VCS.map((name) => `!${name}`), ...(input.glob ? splitGlobField(input.glob) : [])];
  const globs = globList(patterns);
  let typeFilter: ReturnType<typeof globList> | undefined;
  if (input.type !== undefined) {
    const types = typeGlobs(input.type);
    if (types === undefined) return `unrecognized file type: ${input.type}`;
    typeFilter = globList([...types]);
  }
  const keep = shared.guard.walkFilter(context.cwd, readDenials(context));
  return walkFiles({
    root,
    ignoreFiles: true,
    filter: (rel, isDir) => {
      const verdict = globs.test(rel, isDir);
      if (isDir || verdict === 'exclude' || typeFilter === undefined) return verdict;
      return typeFilter.test(rel, false) === 'include' ? verdict : 'exclude';
    },
    onlyIncluded: globs.hasIncludes,
    keep,
    signal: context.signal,
  });
}

/**
 * Searches the files in order. Reads are synchronous, in slices of at most SLICE_MS of the event loop with a yield
 * between: a file read costs a few syscalls, and through the thread pool (4 threads) each is a round trip that cost
 * more than the read itself (node_modules, 15,000 files: 1.8-2.6 s async, 1.1-1.6 s so, at load 20).
 */
async function searchFiles(paths: readonly string[], spec: SearchSpec, mode: string, single: boolean, signal: AbortSignal): Promise<Found> {
  const files: Found['files'] = [];
  const literal = literalOf(spec);
  let sliceStart = performance.now();
  for (const path of paths) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      signal.throwIfAborted();
      sliceStart = performance.now();
    }
    const found = searchFile(path, spec, mode, single, literal);
    if (found !== null) files.push(found);
  }
  return { files };
}

/** The bytes a pattern that is a plain word (no regex syntax, case kept) must contain: a file without them is skipped unread. */
function literalOf(spec: SearchSpec): Buffer | undefined {
  const { source, flags } = spec.regex;
  if (flags.includes('i') || !/^[\w\- ]+$/.test(source)) return undefined;
  return Buffer.from(source);
}

/** Bytes read first: a NUL among them marks a binary file, not read further (as rg stops at one). */
const FIRST_CHUNK = 64 * 1024;

function searchFile(path: string, spec: SearchSpec, mode: string, single: boolean, literal: Buffer | undefined): Found['files'][number] | null {
  const bytes = readTextBytes(path);
  if (bytes === null || (literal !== undefined && bytes.indexOf(literal) === -1)) return null;
  const hits = searchText(bytes.toString('utf8'), spec);
  if (hits === null) return null;
  const lines = mode === 'content' ? contentLines(hits, spec, single ? '' : path) : [];
  return { path, lines, count: hits.matchLines.length };
}

/** A file's bytes, or null when it is binary (a NUL byte), too large, or unreadable. */
function readTextBytes(path: string): Buffer | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const { size } = fstatSync(fd);
    if (size > MAX_FILE_BYTES) return null;
    const bytes = Buffer.allocUnsafe(size);
    const first = readSync(fd, bytes, 0, Math.min(size, FIRST_CHUNK), 0);
    if (bytes.subarray(0, first).indexOf(0) !== -1) return null;
    let read = first;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    const text = bytes.subarray(0, read);
    return text.indexOf(0, first) === -1 ? text : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
