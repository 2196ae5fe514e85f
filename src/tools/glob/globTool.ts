/**
 * Glob: the files whose path matches a glob pattern, oldest first by modification time (ties by path), at most 100,
 * each relative to the working directory when inside it. As Claude Code 2.1.197's (which runs `rg --files --glob
 * PATTERN --sort=modified --no-ignore --hidden`): ignore files are not honoured, hidden files are listed, a pattern
 * without a slash matches at any depth, links are not followed. What the guard hides is never listed.
 */
import { stat } from 'node:fs/promises';
import type { Tool, ToolContext, ToolOutput } from '../../core/tool.js';
import { globList } from '../fileAccess/globs.js';
import { checkFields } from '../fileAccess/input.js';
import { CWD_NOTE, errnoCode, resolvePath, shownPath, toolUseError } from '../fileAccess/paths.js';
import { pathPermission, readDenials } from '../fileAccess/permission.js';
import { pathField, textField, type FileToolsShared } from '../fileAccess/shared.js';
import { walkFiles } from '../fileAccess/walk.js';
import { similarFile } from '../read/similar.js';
import { DESCRIPTION, INPUT_SCHEMA } from './schema.js';

interface GlobInput {
  pattern: string;
  path?: string;
}

/** Claude Code's cap on the files listed. */
export const MAX_FILES = 100;

const FIELDS = { pattern: { kind: 'string', required: true }, path: { kind: 'string' } } as const;

export function createGlobTool(shared: FileToolsShared): Tool {
  return {
    name: 'Glob',
    publicName: 'Glob',
    description: DESCRIPTION,
    inputSchema: INPUT_SCHEMA,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    permission: pathPermission({ tool: 'Read', ruleNames: ['Read'], searches: true, pathOf: (i) => pathField(i, 'path'), edits: false, cwd: shared.cwd, home: shared.home }),
    display: { call: (input) => `Glob ${textField(input, 'pattern')}${pathField(input, 'path') ? ` in ${pathField(input, 'path')}` : ''}` },
    async run(input, context) {
      const checked = checkFields<GlobInput>('Glob', input, FIELDS);
      if ('problem' in checked) return toolUseError(checked.problem);
      return glob(shared, checked.value, context);
    },
  };
}

async function glob(shared: FileToolsShared, input: GlobInput, context: ToolContext): Promise<ToolOutput> {
  const started = Date.now();
  let base = input.path === undefined ? context.cwd : resolvePath(input.path, context.cwd, shared.home);
  if (input.path !== undefined) {
    const bad = await notADirectory(base, input.path, context.cwd);
    if (bad !== null) return toolUseError(bad);
  }
  let pattern = input.pattern;
  if (pattern.startsWith('/')) ({ base, pattern } = splitAbsolute(pattern));
  const refused = shared.guard.readReason(base, context.cwd);
  if (refused !== null) return toolUseError(refused);
  const globs = globList([pattern]);
  const keep = shared.guard.walkFilter(context.cwd, readDenials(context));
  const found = await walkFiles({ root: base, ignoreFiles: false, filter: (rel, isDir) => globs.test(rel, isDir), onlyIncluded: true, keep, signal: context.signal });
  const sorted = await byModificationTime(found);
  const filenames = sorted.slice(0, MAX_FILES).map((p) => shownPath(p, context.cwd));
  const truncated = sorted.length > MAX_FILES;
  const data = { filenames, durationMs: Date.now() - started, numFiles: filenames.length, truncated, totalMatches: sorted.length, countIsComplete: true };
  if (filenames.length === 0) return { content: 'No files found', isError: false, data };
  const note = truncated ? [`(Showing ${filenames.length} of ${sorted.length} matching files; ${sorted.length - filenames.length} more are not listed. Narrow the pattern or path to see the rest.)`] : [];
  return { content: [...filenames, ...note].join('\n'), isError: false, data };
}

async function notADirectory(base: string, given: string, cwd: string): Promise<string | null> {
  try {
    if (!(await stat(base)).isDirectory()) return `Path is not a directory: ${given}`;
    return null;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') return `Cannot search ${given}: ${errnoCode(error) ?? 'unreadable'}`;
    const similar = await similarFile(base, cwd);
    return `Directory does not exist: ${given}. ${CWD_NOTE} ${cwd}.${similar ? ` Did you mean ${similar}?` : ''}`;
  }
}

/** An absolute pattern: the folder before its first wildcard, and the rest. */
export function splitAbsolute(pattern: string): { base: string; pattern: string } {
  const wild = pattern.search(/[*?[{]/);
  if (wild === -1) {
    const slash = pattern.lastIndexOf('/');
    return { base: pattern.slice(0, slash) || '/', pattern: pattern.slice(slash + 1) };
  }
  const slash = pattern.slice(0, wild).lastIndexOf('/');
  return { base: pattern.slice(0, slash) || '/', pattern: pattern.slice(slash + 1) };
}

/** Oldest first; files of the same time by path. */
async function byModificationTime(paths: readonly string[]): Promise<string[]> {
  const times = await Promise.all(paths.map((p) => stat(p).then((s) => s.mtimeMs, () => 0)));
  return paths
    .map((path, i) => ({ path, time: times[i] as number }))
    .sort((a, b) => a.time - b.time || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((e) => e.path);
}
