import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Relative imports of a file (static, `export ... from` and dynamic), as src-relative paths. */
export function importsOf(file: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1] as string);
  return specs.map((spec) => relative(SRC, normalize(join(dirname(file), spec))));
}
