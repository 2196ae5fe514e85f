/**
 * Programs that would wait for a terminal until the timeout. Most interactive programs give up
 * when stdin is empty and there is no terminal (nano, emacs, top, python, ...), and pagers print
 * like `cat` when stdout is not a terminal. Vim does not: at EOF on stdin it reads its commands
 * from stderr instead, which here is the output pipe, and waits there forever. So a vim started
 * for interactive use is answered at once; scripted use (`vim -es`, `vim -c 'wq'`, `vim +cmd`,
 * `vim --version`) runs.
 */
import { basename, commandWords } from './shell/commandWords.js';
import type { Script } from './shell/types.js';

const VIM_NAMES = new Set(['vi', 'vim', 'nvim', 'view', 'vimdiff', 'rvim', 'rview', 'gvim', 'vimx', 'nvi']);
const SCRIPTED = /^(-[A-Za-z]*[eEs][A-Za-z]*|-c|-S|--cmd|--version|--help|-h|\+.*)$/;

/** The name of the interactive program the command line starts, or null. */
export function findInteractive(script: Script): string | null {
  for (const cmd of script.commands) {
    const [first, ...args] = commandWords(cmd.words.map((w) => w.value));
    if (first === null || first === undefined) continue;
    const name = basename(first);
    if (VIM_NAMES.has(name) && !args.some((a) => a !== null && SCRIPTED.test(a))) return name;
  }
  return null;
}
