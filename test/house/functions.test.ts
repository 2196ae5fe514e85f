/**
 * Functions a reader can hold: no function in src/ over 60 lines, counted from its first line to its last (a
 * function inside another counts for both). Read with TypeScript's own parser: declarations, methods, arrow
 * functions and function expressions alike.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const MAX_LINES = 60;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The name a function is known by: its own, the variable or property it is assigned to, else `outer/(anonymous)`. */
function nameOf(node: ts.SignatureDeclaration, file: ts.SourceFile, outer: string | undefined): string {
  const own = node.name?.getText(file);
  if (own) return own;
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText(file);
  return `${outer ?? '(module)'}/(anonymous)`;
}

/** Every function of a source text with its length in lines, as `name: lines`. */
export function functionLengths(text: string, path = 'x.ts'): Array<{ name: string; lines: number }> {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ name: string; lines: number }> = [];
  const visit = (node: ts.Node, outer: string | undefined) => {
    let inside = outer;
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.end).line;
      inside = nameOf(node, file, outer);
      found.push({ name: inside, lines: last - first + 1 });
    }
    ts.forEachChild(node, (child) => visit(child, inside));
  };
  visit(file, undefined);
  return found;
}

function longFunctions(): Map<string, number> {
  const long = new Map<string, number>();
  for (const path of files(SRC)) {
    for (const { name, lines } of functionLengths(readFileSync(path, 'utf8'), path)) {
      const key = `${relative(SRC, path)}: ${name}`;
      if (lines > MAX_LINES) long.set(key, Math.max(lines, long.get(key) ?? 0));
    }
  }
  return long;
}

describe('the functions of src/', () => {
  it(`are at most ${MAX_LINES} lines long, every one of them`, () => {
    expect([...longFunctions()].map(([key, lines]) => `${key} (${lines} lines)`)).toEqual([]);
  });

  it('measures declarations, methods, arrows and the functions inside them (the check itself)', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x${i}();`).join('\n');
    const text = [
      `function declared() {\n${body(3)}\n}`,
      `const arrow = async () => {\n${body(61)}\n};`,
      `class C {\n  method() {\n${body(2)}\n  }\n}`,
      `export function outer() {\n  return [1].map(() => {\n${body(1)}\n  });\n}`,
    ].join('\n');
    expect(functionLengths(text)).toEqual([
      { name: 'declared', lines: 5 },
      { name: 'arrow', lines: 63 },
      { name: 'method', lines: 4 },
      { name: 'outer', lines: 5 },
      { name: 'outer/(anonymous)', lines: 3 },
    ]);
  });
});
