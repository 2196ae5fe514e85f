/**
 * A PATH on which a program is missing, as on a machine that lacks it (bubblewrap, say): each folder of PATH that
 * holds it is replaced by a folder of symbolic links to everything else in it. Readable by every user.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface HiddenProgramPath {
  /** The PATH without the program. */
  path: string;
  remove(): void;
}

export function pathWithout(program: string, pathVar = process.env.PATH ?? ''): HiddenProgramPath {
  const root = mkdtempSync(join(tmpdir(), `agentloop-no-${program}-`));
  chmodSync(root, 0o755);
  const dirs = pathVar.split(delimiter).map((dir, i) => {
    if (dir === '' || !existsSync(join(dir, program))) return dir;
    const mirror = join(root, String(i));
    mkdirSync(mirror, { mode: 0o755 });
    for (const name of readdirSync(dir)) if (name !== program) symlinkSync(join(dir, name), join(mirror, name));
    return mirror;
  });
  return { path: dirs.join(delimiter), remove: () => rmSync(root, { recursive: true, force: true }) };
}
