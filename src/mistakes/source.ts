/**
 * Where a line of the correct loop is: found in the sources of this package when they are here
 * (a clone), else in its build (an installed package ships dist/ only). Found by its text, so the
 * line number is always the current one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SourceLine {
  /** Relative to the package's root, e.g. `src/machine/agentMachine.ts`. */
  path: string;
  line: number;
  text: string;
}

/** The package's root: the nearest folder above this module whose package.json names agentloop. */
function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'agentloop') return dir;
      } catch {
        // not this one
      }
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The first line of `file` (under src/, or its .js under dist/) that starts with `start` (leading blanks aside). */
export function findSourceLine(file: string, start: string): SourceLine | undefined {
  const root = packageRoot();
  if (!root) return undefined;
  for (const candidate of [join(root, 'src', file), join(root, 'dist', file.replace(/\.ts$/, '.js'))]) {
    if (!existsSync(candidate)) continue;
    const lines = readFileSync(candidate, 'utf8').split('\n');
    const index = lines.findIndex((l) => l.trimStart().startsWith(start));
    if (index >= 0) return { path: relative(root, candidate), line: index + 1, text: (lines[index] as string).trim() };
  }
  return undefined;
}
