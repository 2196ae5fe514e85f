/**
 * The tool contract (issue 44): every edge learns what it needs of a tool from the tool itself (core/tool.ts: its
 * public name, display, read-only check, permission), none by name. So the bash tool's name is written in the bash
 * tool (src/tools/bash/) and in the list of defaults (src/run/defaultTools.ts), nowhere else: a new `'bash'` in src/
 * fails here. Comments may name it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Where the name belongs. */
const ITS_PLACES = [/^tools\/bash\//, /^run\/defaultTools\.ts$/];

/**
 * Files that still judge the bash tool by name, with what replaces them; an entry whose file no longer does fails the
 * test, so the list only shrinks.
 */
const BEING_REPLACED: Record<string, string> = {};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The code of a file without its comments (a line's `//` comment, `/* ... *\/` blocks). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function namingBash(): string[] {
  return files(SRC)
    .map((file) => relative(SRC, file))
    .filter((path) => !ITS_PLACES.some((place) => place.test(path)))
    .filter((path) => /(['"`])bash\1/.test(code(readFileSync(join(SRC, path), 'utf8'))));
}

describe('the house: no tool is special-cased by name', () => {
  it("writes 'bash' only in the bash tool and the list of defaults", () => {
    expect(namingBash().filter((path) => !(path in BEING_REPLACED))).toEqual([]);
  });

  it('keeps the list of files being replaced true', () => {
    const still = new Set(namingBash());
    expect(Object.keys(BEING_REPLACED).filter((path) => !still.has(path))).toEqual([]);
  });
});
