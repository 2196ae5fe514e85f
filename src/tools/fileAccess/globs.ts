/**
 * ripgrep's `--glob` patterns (gitignore-style, as Claude Code's Glob and Grep pass them): a pattern without a slash
 * matches a name at any depth (`*.md` finds `docs/guide.md`), one with a slash matches the path from the search root
 * (a leading `/` anchors it there), `!` makes it an exclusion. minimatch (npm's own glob matcher) does the matching.
 */
import { minimatch } from './packages.js';

export interface GlobList {
  /** What the list says of a path relative to the search root. */
  test(rel: string, isDir: boolean): 'exclude' | 'include' | 'neutral';
  /** Whether it holds a pattern that includes (then a file must match one). */
  hasIncludes: boolean;
}

export function globList(patterns: readonly string[]): GlobList {
  const compiled = patterns.filter((p) => p !== '').map((p) => {
    const negated = p.startsWith('!');
    let body = negated ? p.slice(1) : p;
    const anchored = body.replace(/\/+$/, '').includes('/');
    body = body.replace(/^\//, '').replace(/\/+$/, '');
    return { negated, matcher: matcherOf(body, anchored) };
  });
  const hasIncludes = compiled.some((c) => !c.negated);
  return {
    hasIncludes,
    test(rel, isDir) {
      // The last pattern that matches decides, as in rg.
      for (let i = compiled.length - 1; i >= 0; i--) {
        const { negated, matcher } = compiled[i] as (typeof compiled)[number];
        if (!matcher.match(rel)) continue;
        if (negated) return 'exclude';
        return isDir ? 'neutral' : 'include';
      }
      return 'neutral';
    },
  };
}

/** A matcher of a path: a plain name or `*.ext` without a slash is compared with the path's last name (the common
 * case, and a walk tests every entry); anything else goes to minimatch. */
function matcherOf(body: string, anchored: boolean): { match(rel: string): boolean } {
  const name = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
  if (!anchored && !/[*?[\]{}!\\]/.test(body)) return { match: (rel) => name(rel) === body };
  if (!anchored && /^\*[^*?[\]{}!\\/]+$/.test(body)) {
    const tail = body.slice(1);
    return { match: (rel) => name(rel).endsWith(tail) };
  }
  return minimatch(body, { dot: true, matchBase: !anchored, nocomment: true, nonegate: true });
}

/** Claude Code's split of Grep's `glob` field: on spaces, and on commas outside braces (`*.{ts,tsx}` stays whole). */
export function splitGlobField(glob: string): string[] {
  const out: string[] = [];
  for (const part of glob.split(/\s+/)) {
    if (part.includes('{') && part.includes('}')) out.push(part);
    else out.push(...part.split(',').filter(Boolean));
  }
  return out.filter(Boolean);
}
