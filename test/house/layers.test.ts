/**
 * The house: each folder of src/ is a layer, and a file imports only from its own folder or from a
 * lower layer. The order is rooms.ts's, which README's architecture section draws.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf } from './imports.js';
import { LAYERS } from './rooms.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

const MAX_LINES = 300;
/**
 * Files over the limit that work in progress replaces (each entry says by what); an entry whose
 * file is no longer over the limit fails the test, so the list only shrinks.
 */
const BEING_REPLACED: Record<string, string> = {};

const rank = (folder: string) => LAYERS.findIndex((layer) => layer.includes(folder));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}


const folderOf = (srcPath: string) => srcPath.split('/')[0] as string;

function upwardImports(): string[] {
  const problems: string[] = [];
  for (const file of files(SRC)) {
    const from = folderOf(relative(SRC, file));
    for (const target of importsOf(file, readFileSync(file, 'utf8'))) {
      const to = folderOf(target);
      if (to === from) continue;
      if (rank(from) < 0 || rank(to) < 0) problems.push(`${relative(SRC, file)} -> ${target}: a folder the layer list does not name`);
      else if (rank(to) >= rank(from)) problems.push(`${relative(SRC, file)} -> ${target}: ${to} is not below ${from}`);
    }
  }
  return problems;
}

describe('the layers of src/', () => {
  it('only import downward', () => {
    expect(upwardImports()).toEqual([]);
  });

  it('name every folder of src/', () => {
    const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory() || name === 'index.ts');
    expect(folders.filter((f) => rank(f) < 0)).toEqual([]);
  });

  it('keep the ground floor free of the project: core imports nothing outside core', () => {
    const core = files(join(SRC, 'core')).flatMap((file) => importsOf(file, readFileSync(file, 'utf8')).filter((t) => folderOf(t) !== 'core'));
    expect(core).toEqual([]);
  });

  it('keep judging a command apart from running one: tools/bash/judge imports nothing of tools/bash/run', () => {
    const judge = join(SRC, 'tools', 'bash', 'judge');
    const intoRun = files(judge).flatMap((file) =>
      importsOf(file, readFileSync(file, 'utf8'))
        .filter((target) => target.startsWith('tools/bash/run/'))
        .map((target) => `${relative(SRC, file)} -> ${target}`),
    );
    expect(intoRun).toEqual([]);
  });

  it(`hold no file over ${MAX_LINES} lines`, () => {
    const long = files(SRC)
      .map((file) => [relative(SRC, file), readFileSync(file, 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > MAX_LINES);
    expect(long.filter(([file]) => !(file in BEING_REPLACED))).toEqual([]);
    expect(Object.keys(BEING_REPLACED).filter((file) => !long.some(([f]) => f === file))).toEqual([]);
  });

  it('sees an import that runs back up (the check itself)', () => {
    const fake = join(SRC, 'core', 'x.ts');
    expect(importsOf(fake, "import { runAgent } from '../run/runAgent.js';\nconst m = await import('../cli/main.js');")).toEqual([
      'run/runAgent.js',
      'cli/main.js',
    ]);
  });
});
