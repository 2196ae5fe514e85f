/**
 * Claude Code's "Did you mean ...?" after a missing file: the same path under the working directory when the model
 * gave it from the folder above (a path one level off), else a file of the same name with another extension beside it.
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, sep } from 'node:path';

export async function similarFile(path: string, cwd: string): Promise<string | undefined> {
  return (await underCwd(path, cwd)) ?? (await otherExtension(path));
}

async function underCwd(path: string, cwd: string): Promise<string | undefined> {
  const parent = dirname(cwd);
  let real = path;
  try {
    real = join(await realpath(dirname(path)), basename(path));
  } catch {
    // A missing folder: the path as given.
  }
  const above = parent === sep ? sep : parent + sep;
  if (!real.startsWith(above) || real.startsWith(cwd + sep) || real === cwd) return undefined;
  const candidate = join(cwd, relative(parent, real));
  try {
    await stat(candidate);
    return candidate;
  } catch {
    return undefined;
  }
}

async function otherExtension(path: string): Promise<string | undefined> {
  const stem = basename(path, extname(path));
  try {
    const names = await readdir(dirname(path));
    return names.find((name) => basename(name, extname(name)) === stem && join(dirname(path), name) !== path);
  } catch {
    return undefined;
  }
}
