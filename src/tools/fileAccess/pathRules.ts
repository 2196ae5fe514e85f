/**
 * Permission rules on paths, as Claude Code reads them: `Read(path-pattern)`, `Edit(...)`, `Write(...)`. The pattern
 * is gitignore-style (the `ignore` package, the gitignore implementation eslint and others use) and rooted by its
 * prefix: `//abs/x` from the file system's root, `~/x` from the home, `/x` from the project root (the working
 * directory: the first of `dirs`), `./x` and a bare `x` from the working directory (a bare name, as in a .gitignore,
 * matches at any depth: `Read(.env)` covers every `.env` below it). A path outside the pattern's root never matches. The
 * root counts as given and as its real path: with the working directory reached through a link, `Read(secret/**)`
 * covers `secret/key` named by either path (a deny rule named through the real path was passed by, before).
 */
import { homedir } from 'node:os';
import { isAbsolute, relative, sep } from 'node:path';
import { realPathOf } from '../bash/run/protect.js';
import { ignore } from './packages.js';

export interface RootedPattern {
  root: string;
  pattern: string;
}

/** Where a specifier's pattern is rooted, and the pattern from there. */
export function rootedPattern(specifier: string, dirs: readonly string[], home: string = homedir()): RootedPattern {
  const cwd = dirs[0] ?? process.cwd();
  if (specifier.startsWith('//')) return { root: '/', pattern: specifier.slice(1) };
  if (specifier.startsWith('~/')) return { root: home, pattern: specifier.slice(1) };
  if (specifier.startsWith('/')) return { root: cwd, pattern: specifier };
  return { root: cwd, pattern: specifier.startsWith('./') ? specifier.slice(2) : specifier };
}

/** Whether the rule's pattern covers the absolute `path`. */
export function patternCovers(rooted: RootedPattern, path: string): boolean {
  return coverTest(rooted)(path);
}

/** The test of `patternCovers` for one rule, compiled once (a walk asks it of every entry). */
export function coverTest(rooted: RootedPattern): (path: string) => boolean {
  const rules = ignore().add(rooted.pattern);
  const everything = rooted.pattern === '/**' || rooted.pattern === '**';
  const roots = [...new Set([rooted.root, realPathOf(rooted.root)])];
  const covers = (root: string, path: string) => {
    const rel = relative(root, path);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return everything;
    return rules.ignores(rel.split(sep).join('/'));
  };
  return (path) => roots.some((root) => covers(root, path));
}

/** Throws a one-line error when `specifier` cannot be a path rule. */
export function checkPathSpecifier(tool: string, specifier: string): void {
  if (specifier.trim() === '') throw new Error(`${tool}(): the path pattern is empty; write ${tool} alone for every path`);
  if (specifier.includes('\0')) throw new Error(`${tool}(${JSON.stringify(specifier)}): a path pattern cannot hold a NUL byte`);
}
