/**
 * Command lines of plain words only, read without the parser: for the moment before it has loaded
 * (the first tool_use of a run often arrives while it still loads), so that the checks (guard,
 * interactive programs, read-only, permission rules) can judge `sleep 1; ls -la` at once. Words of
 * `[A-Za-z0-9_./:=@%+,^-]`, joined by `;`, `&&`, `||`, `|` and newlines, and a trailing `# comment`;
 * anything else (quotes, `$`, globs, redirections, an assignment or a reserved word in command
 * position, ...) answers null, and the caller waits for the parser.
 *
 * What it gives is the Script parse.ts gives for the same line (test/tools/bash/bashPlain.process.test.ts holds
 * the two side by side): the same commands with the same words, what flows through each pipe
 * (shell/knownOutput.ts), and the directory a `cd` before a command moved to.
 */
import { changedDirectory } from './commandWords.js';
import { outputOf } from './knownOutput.js';
import type { Flow, Script, SimpleCommand } from './types.js';

const TOKEN = /[ \t]*(?:(&&|\|\||[|;\n])|([A-Za-z0-9_./:=@%+,^-]+)|((?<=^|[ \t;|&\n])#[^\n]*))/y;

/** Words the parser reads as something other than a command's name when they come first. */
const NOT_A_COMMAND = new Set([
  'if', 'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'select', 'while', 'until', 'do', 'done', 'in',
  'function', 'time', 'coproc',
  'export', 'declare', 'typeset', 'local', 'readonly', 'unset', 'unsetenv',
]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
// Besides: tree-sitter-bash reads a word `==` as a test operator (a syntax error outside `[[ ]]`), and a command `-`
// before a word with `=` as an assignment.

interface Written {
  words: string[];
  start: number;
  end: number;
}

/** The Script of a line of plain words (starting in `cwd` when known), or null for any other line. */
export function plainWordsScript(source: string, options: { cwd?: string | null } = {}): Script | null {
  const pipelines = readPipelines(source);
  if (pipelines === null) return null;
  const commands: SimpleCommand[] = [];
  let cwd = options.cwd ?? null;
  for (const stages of pipelines) {
    // Each stage of a pipeline runs in a subshell: its `cd` moves nothing after it.
    let stdin: Flow | null = null;
    for (const stage of stages) {
      const first = stage.words[0] as string;
      if (NOT_A_COMMAND.has(first) || ASSIGNMENT.test(first) || first === '-' || stage.words.includes('==')) return null;
      const command = simple(source, stage, stdin, cwd);
      commands.push(command);
      if (stages.length === 1) cwd = changedDirectory(command.words.map((w) => w.value), cwd) ?? cwd;
      stdin = outputOf(command);
    }
  }
  return { source, commands, redirects: [], functions: [], plain: true, complete: true };
}

/** The pipelines of the line, each a list of its commands; null when it is not plain words or would be a syntax error. */
function readPipelines(source: string): Written[][] | null {
  const pipelines: Written[][] = [];
  let stages: Written[] = [];
  let current: Written | null = null;
  /** After `|`, `&&` or `||`: a command must follow (newlines may come first). */
  let pending = false;
  /** A pipeline of three commands or more has been read. */
  let longPipeline = false;
  const endCommand = (): boolean => {
    if (current === null) return false;
    stages.push(current);
    current = null;
    return true;
  };
  const endPipeline = (): void => {
    if (stages.length >= 3) longPipeline = true;
    if (stages.length > 0) pipelines.push(stages);
    stages = [];
  };
  let at = 0;
  while (at < source.length) {
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(source);
    if (m === null) {
      if (!/^[ \t\n]*$/.test(source.slice(at))) return null;
      break;
    }
    const [, operator, word, comment] = m;
    if (word !== undefined) {
      const end = TOKEN.lastIndex;
      current ??= { words: [], start: end - word.length, end };
      current.words.push(word);
      current.end = end;
      pending = false;
    } else if (operator === '\n') {
      // tree-sitter-bash reads `a | b |\n c || d` as `a | (b | c || d)`: a pipe continued on the next line is left to it.
      if (pending && stages.length > 0 && current === null) return null;
      if (!pending) {
        endCommand();
        endPipeline();
      }
    } else if (operator !== undefined) {
      if (!endCommand()) return null; // `| x`, `ls && ;`, `;;`
      // tree-sitter-bash reads `a | b | c && d` as `a | (b | c && d)`, and `a | b | c\nd && e` as `a | (b | c d && e)`:
      // a line with both is left to it.
      if ((operator === '&&' || operator === '||') && (longPipeline || stages.length >= 3)) return null;
      if (operator !== '|') endPipeline();
      pending = operator !== ';';
    } else if (comment !== undefined) {
      if (pending) return null;
      endCommand();
      endPipeline();
    }
    at = TOKEN.lastIndex;
  }
  if (pending) return null; // `ls |`
  endCommand();
  endPipeline();
  return pipelines;
}

function simple(source: string, written: Written, stdin: Flow | null, cwd: string | null): SimpleCommand {
  return {
    text: source.slice(written.start, written.end),
    assignments: [],
    words: written.words.map((value) => ({ text: value, value, glob: false, dynamic: false })),
    redirects: [],
    stdin,
    cwd,
    substituted: false,
  };
}
