/**
 * No import circle in src/ (type imports included): two files that import each other, or a ring of them, cannot be
 * read, tested or moved one at a time. The import graph is the layers test's (`importsOf`: static, `export ... from`,
 * dynamic and `import type` alike); each strongly connected set of files of two or more is a circle.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf } from './imports.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * Circles that work in progress breaks (each entry says by what); an entry that is no longer a circle fails the test,
 * so the list only shrinks. A circle is named by its files, sorted, joined with ' <-> '.
 */
const BEING_BROKEN: Record<string, string> = {};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The import graph of src/: each file (src-relative, .ts) and the files of src/ it imports. */
function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of files(SRC)) {
    const targets = importsOf(file, readFileSync(file, 'utf8')).map((t) => t.replace(/\.js$/, '.ts'));
    edges.set(relative(SRC, file), [...new Set(targets)]);
  }
  return edges;
}

/** The circles of a graph: its strongly connected sets of two files or more (Tarjan's algorithm), each sorted. */
export function circles(edges: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const set: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      set.push(w);
    } while (w !== v);
    if (set.length > 1) found.push(set.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

describe('the imports of src/', () => {
  const found = circles(graph()).map((set) => set.join(' <-> '));

  it('make no circle (type imports included)', () => {
    expect(found.filter((circle) => !(circle in BEING_BROKEN))).toEqual([]);
  });

  it('still make each circle the list of work in progress names', () => {
    expect(Object.keys(BEING_BROKEN).filter((circle) => !found.includes(circle))).toEqual([]);
  });

  it('are read as circles: a ring of three, and a file that imports itself is none', () => {
    const ring = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts', 'd.ts']], ['d.ts', ['d.ts']]]);
    expect(circles(ring)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
