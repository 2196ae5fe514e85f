/**
 * What a user installs is what the CLI and the library use: every package in `dependencies` is named by src/ (an
 * import, a dynamic import, a require or a require.resolve of it or of a file in it). A package only the benchmarks or
 * the tests use belongs in `devDependencies` (execa stayed a dependency after the bash tool stopped using it).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx|mjs)$/.test(name) ? [path] : [];
  });
}

/** A quoted module specifier of `name` itself or of a file in it: `'xstate'`, `"ajv"`, `'tree-sitter-bash/x.wasm'`. */
function named(name: string, text: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`['"\`]${escaped}(/[^'"\`]*)?['"\`]`).test(text);
}

describe('dependencies', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const text = sources(join(ROOT, 'src')).map((file) => readFileSync(file, 'utf8')).join('\n');

  it.each(Object.keys(pkg.dependencies))('%s is used by src/', (name) => {
    expect(named(name, text), `${name} is in dependencies but src/ never loads it: move it to devDependencies`).toBe(true);
  });

  it('the check itself tells a specifier from a word in a comment', () => {
    expect(named('execa', "// spawned with execa before")).toBe(false);
    expect(named('execa', "import { execa } from 'execa';")).toBe(true);
    expect(named('tree-sitter-bash', "require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')")).toBe(true);
    expect(named('ws', "import x from 'wsx';")).toBe(false);
  });
});
