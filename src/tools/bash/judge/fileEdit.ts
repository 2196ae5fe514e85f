/**
 * Claude Code's acceptEdits mode for commands: a line of `mkdir`, `touch`, `mv`, `cp` (with read-only commands) whose
 * paths, as written, stay inside the working directory or a directory of `--add-dir` runs unasked.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { isReadOnlyScript } from './readOnly.js';
import type { Script } from './shell/types.js';

const FILE_COMMANDS = new Set(['mkdir', 'touch', 'mv', 'cp']);

/** Only `mkdir`, `touch`, `mv`, `cp` and read-only commands, plain words, every path as written inside one of `dirs` (the first is where relative paths start). */
export function isFileEdit(script: Script, dirs: readonly string[]): boolean {
  if (!script.plain || !script.complete || script.redirects.length > 0 || script.commands.length === 0 || dirs.length === 0) return false;
  return script.commands.every((command) => {
    const [name, ...args] = command.words.map((w) => w.value);
    if (name === undefined || name === null) return false;
    if (!FILE_COMMANDS.has(name)) return isReadOnlyScript({ ...script, commands: [command] });
    const base = command.cwd ?? (dirs[0] as string);
    // Options of letters alone (`-p`, `--parents`); one with a value written into it (`--target-directory=/x`) is not.
    return args.every((arg) => arg !== null && (arg.startsWith('-') ? /^-[A-Za-z]+$|^--[a-z][a-z-]*$/.test(arg) : dirs.some((dir) => inside(resolve(base, arg), dir))));
  });
}

function inside(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
