/**
 * How to run this agentloop again, as a command a user can paste: `agentloop` when that name on
 * the PATH is this very program (`npm link`, a global install), otherwise `node` and the absolute
 * path of the script that is running (after `npm ci` in a clone: `node /…/dist/cli/main.js`), so
 * that a command printed for later (`view --compare A B`) works from any directory as printed.
 */
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const real = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/** A word for a POSIX shell: as it is when it needs no quotes, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command that runs this program: `agentloop`, or `node /abs/path/main.js`. */
export function selfCommand(script = process.argv[1], path = process.env.PATH ?? ''): string {
  const self = script ? real(script) : undefined;
  if (!self) return 'agentloop';
  for (const dir of path.split(delimiter)) {
    const candidate = dir ? join(dir, 'agentloop') : '';
    if (candidate && existsSync(candidate) && real(candidate) === self) return 'agentloop';
  }
  return `node ${shellWord(self)}`;
}
