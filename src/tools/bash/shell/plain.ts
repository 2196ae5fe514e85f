/**
 * Command lines of plain words only, read without the parser: for the moment before it has loaded
 * (the first tool_use of a run often arrives while it still loads), so that `sleep 1; ls -la`
 * may still start at once. Words of `[A-Za-z0-9_./:=@%+,^-]`, joined by `;`, `&&`, `||`, `|` and
 * newlines, and a trailing `# comment`; anything else (quotes, `$`, globs, redirections, ...)
 * answers null, and the caller waits for the parser.
 */
import type { Script, SimpleCommand } from './types.js';

const TOKEN = /[ \t]*(?:(&&|\|\||[|;\n])|([A-Za-z0-9_./:=@%+,^-]+)|((?<=^|[ \t;|&\n])#[^\n]*))/y;

export function plainWordsScript(command: string): Script | null {
  const commands: SimpleCommand[] = [];
  let words: string[] = [];
  const end = () => {
    if (words.length > 0) commands.push(simple(words));
    words = [];
  };
  let at = 0;
  let dangling = false;
  while (at < command.length) {
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(command);
    if (m === null) return /^[ \t\n]*$/.test(command.slice(at)) ? finish() : null;
    at = TOKEN.lastIndex;
    if (m[1] !== undefined) {
      if (words.length === 0 && m[1] !== '\n' && m[1] !== ';') return null; // `| x`, `&& x`
      dangling = m[1] !== '\n' && m[1] !== ';';
      end();
    } else if (m[2] !== undefined) {
      words.push(m[2]);
      dangling = false;
    }
  }
  return finish();

  function finish(): Script | null {
    if (dangling) return null; // `ls |`
    end();
    return { commands, redirects: [], functions: [], plain: true, complete: true };
  }
}

function simple(words: string[]): SimpleCommand {
  return {
    text: words.join(' '),
    assignments: [],
    words: words.map((value) => ({ text: value, value, glob: false, dynamic: false })),
    redirects: [],
    stdin: null,
    cwd: null,
    substituted: false,
  };
}
