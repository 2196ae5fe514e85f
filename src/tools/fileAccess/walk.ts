/**
 * Walking a folder as ripgrep does for Claude Code's Glob and Grep: hidden files included, symbolic links not followed
 * (a link is neither listed nor entered), and, when asked (Grep), the ignore files honoured: `.gitignore` inside a git
 * repository (a folder with `.git` at or above it), `.ignore` and `.rgignore` anywhere, each from its own folder down,
 * a deeper one overriding (the `ignore` package reads their gitignore syntax). `filter` may turn a glob list into a
 * whitelist that overrides the ignore files for files, as rg's `--glob` does; `keep` is the containment guard.
 */
import { existsSync, type Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Ignore } from 'ignore';
import { ignore } from './packages.js';

export interface WalkOptions {
  root: string;
  /** Honour .gitignore (in a repository), .ignore and .rgignore. */
  ignoreFiles: boolean;
  /** Glob filters on the path relative to `root`: 'exclude' drops, 'include' keeps past the ignore files. */
  filter?(rel: string, isDir: boolean): 'exclude' | 'include' | 'neutral';
  /** Files must be 'include'd by `filter` (a whitelist was given). */
  onlyIncluded?: boolean;
  /** Whether an entry (absolute path, as walked) may be seen at all. */
  keep(path: string): boolean;
  signal?: AbortSignal;
}

interface Matcher {
  base: string;
  rules: Ignore;
}

const IGNORE_FILES = ['.ignore', '.rgignore'];
/** Folders read at once. */
const PARALLEL = 16;

/** Every file under `options.root` that the walk lets through, as absolute paths, sorted. */
export async function walkFiles(options: WalkOptions): Promise<string[]> {
  const files: string[] = [];
  const rootRepo = options.ignoreFiles ? repositoryRoot(options.root) : undefined;
  const start = options.ignoreFiles && rootRepo !== undefined ? await ancestorMatchers(options.root, rootRepo) : [];
  let level: { dir: string; matchers: Matcher[]; inRepo: boolean }[] = [{ dir: options.root, matchers: start, inRepo: rootRepo !== undefined }];
  while (level.length > 0) {
    options.signal?.throwIfAborted();
    const next: typeof level = [];
    for (let i = 0; i < level.length; i += PARALLEL) {
      const batch = level.slice(i, i + PARALLEL);
      const read = await Promise.all(batch.map((item) => readFolder(item.dir, item.inRepo, options.ignoreFiles)));
      batch.forEach((item, j) => visit(options, item, read[j] as Folder, files, next));
    }
    level = next;
  }
  return files.sort();
}

interface Folder {
  entries: Dirent[];
  matchers: Matcher[];
  inRepo: boolean;
}

function visit(options: WalkOptions, item: { dir: string; matchers: Matcher[] }, folder: Folder, files: string[], next: { dir: string; matchers: Matcher[]; inRepo: boolean }[]): void {
  const matchers = [...item.matchers, ...folder.matchers];
  for (const entry of folder.entries) {
    const path = join(item.dir, entry.name);
    const isDir = entry.isDirectory();
    if (!isDir && !entry.isFile()) continue;
    if (!options.keep(path)) continue;
    const rel = relative(options.root, path).split(sep).join('/');
    const filtered = options.filter?.(rel, isDir) ?? 'neutral';
    if (filtered === 'exclude') continue;
    if (!(filtered === 'include' && !isDir) && isIgnored(matchers, path, isDir)) continue;
    if (isDir) next.push({ dir: path, matchers, inRepo: folder.inRepo });
    else if (filtered === 'include' || options.onlyIncluded !== true) files.push(path);
  }
}

async function readFolder(dir: string, inRepo: boolean, withIgnoreFiles: boolean): Promise<Folder> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return { entries: [], matchers: [], inRepo };
  }
  if (!withIgnoreFiles) return { entries, matchers: [], inRepo };
  const here = inRepo || entries.some((e) => e.name === '.git');
  const names = entries.map((e) => e.name);
  const wanted = [...(here && names.includes('.gitignore') ? ['.gitignore'] : []), ...IGNORE_FILES.filter((n) => names.includes(n))];
  const matchers = await Promise.all(wanted.map(async (name) => ({ base: dir, rules: ignore().add(await readFile(join(dir, name), 'utf8').catch(() => '')) })));
  return { entries, matchers, inRepo: here };
}

function isIgnored(matchers: readonly Matcher[], path: string, isDir: boolean): boolean {
  let ignored = false;
  for (const { base, rules } of matchers) {
    const rel = relative(base, path).split(sep).join('/');
    if (rel === '' || rel.startsWith('..')) continue;
    const result = rules.test(isDir ? `${rel}/` : rel);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

/** The folder holding `.git` at or above `dir`, if any. */
function repositoryRoot(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return undefined;
  }
}

/** The ignore files of the folders from the repository's root down to (not including) `root`. */
async function ancestorMatchers(root: string, repo: string): Promise<Matcher[]> {
  const dirs: string[] = [];
  for (let at = dirname(root); root !== repo && at.length >= repo.length; at = dirname(at)) {
    dirs.unshift(at);
    if (at === repo) break;
  }
  const out: Matcher[] = [];
  for (const dir of dirs) {
    for (const name of ['.gitignore', ...IGNORE_FILES]) {
      const text = await readFile(join(dir, name), 'utf8').catch(() => undefined);
      if (text !== undefined) out.push({ base: root, rules: ignore().add(rebased(text, relative(dir, root).split(sep).join('/'))) });
    }
  }
  return out;
}

/**
 * The rules of an ignore file of a folder above the walk's root, as rules of the root (`prefix`: the root from that
 * folder). rg tests each path below the root on its own, never the root or the folders above it; the ignore package
 * also tests a path's parents, so a rule that matches the root itself (`node_modules/` when searching node_modules)
 * would hide everything. A rule with no slash but a trailing one matches at any depth and is kept; an anchored one is
 * kept from the root when it starts with `prefix`, and dropped otherwise (it names nothing below the root).
 */
export function rebased(text: string, prefix: string): string {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const body = negated ? line.slice(1) : line;
    const bang = negated ? '!' : '';
    if (!body.replace(/\/$/, '').includes('/') || body.startsWith('**/')) {
      out.push(line);
      continue;
    }
    const anchored = body.replace(/^\//, '');
    if (anchored.startsWith(`${prefix}/`)) out.push(`${bang}/${anchored.slice(prefix.length + 1)}`);
  }
  return out.join('\n');
}
