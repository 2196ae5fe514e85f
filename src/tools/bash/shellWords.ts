/**
 * A rough lexer for bash command lines: enough to find the commands, their arguments and their
 * redirections. It is not a bash parser. `guard.ts` uses it to spot dangerous commands (a guard
 * against mistakes, not security) and `readOnly.ts` to recognise plainly read-only commands
 * (where anything it does not understand must make the answer "no").
 */

export type Operator = ';' | '&' | '&&' | '||' | '|' | '|&' | '(' | ')';

export interface Word {
  kind: 'word';
  /** The word with quotes and backslashes removed; expansions are kept as written. */
  value: string;
  /** Contains an expansion: `$VAR`, `${...}`, `$(...)`, backquotes, `<(...)`. */
  dynamic: boolean;
  /** Contains an unquoted glob character (`*`, `?`, `[`). */
  glob: boolean;
}

export interface Redirect {
  kind: 'redirect';
  /** The file descriptor written before the operator (`2` in `2>`), or null. */
  fd: string | null;
  op: string;
  target: Word;
}

export interface OperatorToken {
  kind: 'op';
  value: Operator;
}

export type Token = Word | Redirect | OperatorToken;

export interface Lexed {
  tokens: Token[];
  /** Bodies of command and process substitutions, and of `${...}` holding one. */
  substitutions: string[];
  /** False when a quote, parenthesis or redirection is left open. */
  complete: boolean;
}

export interface SimpleCommand {
  words: Word[];
  redirects: Redirect[];
}

// Longest first, so that `>>` wins over `>`.
const REDIRECT_OPS = ['&>>', '&>', '<<<', '<<-', '<<', '<>', '<&', '>&', '>>', '>|', '<', '>'];

interface PendingWord {
  value: string;
  dynamic: boolean;
  glob: boolean;
  /** Some of it was quoted or escaped: `"2">` is not a file descriptor. */
  quoted: boolean;
}

export function lex(src: string): Lexed {
  const tokens: Token[] = [];
  const substitutions: string[] = [];
  let complete = true;
  let word: PendingWord | null = null;
  let redirect: { fd: string | null; op: string } | null = null;
  const heredocs: { delimiter: string; stripTabs: boolean }[] = [];
  let i = 0;

  const current = (): PendingWord =>
    (word ??= { value: '', dynamic: false, glob: false, quoted: false });

  const endWord = (): void => {
    if (word === null) return;
    const w: Word = { kind: 'word', value: word.value, dynamic: word.dynamic, glob: word.glob };
    if (redirect !== null) {
      tokens.push({ kind: 'redirect', fd: redirect.fd, op: redirect.op, target: w });
      if (redirect.op === '<<' || redirect.op === '<<-') {
        heredocs.push({ delimiter: w.value, stripTabs: redirect.op === '<<-' });
      }
      redirect = null;
    } else {
      tokens.push(w);
    }
    word = null;
  };

  const pushOp = (value: Operator): void => {
    endWord();
    if (redirect !== null) {
      complete = false;
      redirect = null;
    }
    tokens.push({ kind: 'op', value });
  };

  /** Reads `(...)` starting at `start` (which holds `(`); returns the index after `)`. */
  const balanced = (start: number, open: string, close: string): number => {
    let depth = 0;
    for (let j = start; j < src.length; j++) {
      const c = src[j];
      if (c === '\\') j++;
      else if (c === "'" && open === '(') {
        const end = src.indexOf("'", j + 1);
        if (end < 0) break;
        j = end;
      } else if (c === open) depth++;
      else if (c === close && --depth === 0) return j + 1;
    }
    complete = false;
    return src.length;
  };

  /** Reads a substitution starting at `start` (at `(`), records its body; returns the index after it. */
  const substitution = (start: number): number => {
    const end = balanced(start, '(', ')');
    substitutions.push(src.slice(start + 1, end - 1));
    return end;
  };

  const backquote = (start: number): number => {
    let j = start + 1;
    while (j < src.length && src[j] !== '`') j += src[j] === '\\' ? 2 : 1;
    if (j >= src.length) complete = false;
    substitutions.push(src.slice(start + 1, j));
    return j + 1;
  };

  /** Handles `$` at `i` (unquoted or in double quotes); returns the index after what it read. */
  const dollar = (w: PendingWord): number => {
    const next = src[i + 1];
    if (next === '(') {
      const end = substitution(i + 1);
      w.value += src.slice(i, end);
      w.dynamic = true;
      return end;
    }
    if (next === '{') {
      const end = balanced(i + 1, '{', '}');
      const body = src.slice(i + 2, end - 1);
      if (body.includes('$(') || body.includes('`')) substitutions.push(body);
      w.value += src.slice(i, end);
      w.dynamic = true;
      return end;
    }
    if (next !== undefined && /[A-Za-z0-9_@*#?$!-]/.test(next)) w.dynamic = true;
    w.value += '$';
    return i + 1;
  };

  const skipHeredocBodies = (): void => {
    for (const { delimiter, stripTabs } of heredocs.splice(0)) {
      for (;;) {
        if (i >= src.length) return;
        const eol = src.indexOf('\n', i);
        const end = eol < 0 ? src.length : eol;
        const line = src.slice(i, end);
        i = end + 1;
        if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
      }
    }
  };

  while (i < src.length) {
    const c = src[i] as string;
    const next = src[i + 1];

    if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else if (c === '\n') {
      pushOp(';');
      i++;
      skipHeredocBodies();
    } else if (c === '#' && word === null) {
      const eol = src.indexOf('\n', i);
      i = eol < 0 ? src.length : eol;
    } else if (c === '\\') {
      if (next === '\n') {
        i += 2;
        continue;
      }
      const w = current();
      w.value += next ?? '';
      w.quoted = true;
      i += 2;
    } else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      const w = current();
      w.quoted = true;
      if (end < 0) {
        complete = false;
        w.value += src.slice(i + 1);
        i = src.length;
      } else {
        w.value += src.slice(i + 1, end);
        i = end + 1;
      }
    } else if (c === '$' && next === "'") {
      // ANSI-C quoting: escapes are kept as written, which is enough for our purposes.
      let j = i + 2;
      while (j < src.length && src[j] !== "'") j += src[j] === '\\' ? 2 : 1;
      if (j >= src.length) complete = false;
      const w = current();
      w.quoted = true;
      w.value += src.slice(i + 2, j);
      i = j + 1;
    } else if (c === '"') {
      const w = current();
      w.quoted = true;
      i++;
      while (i < src.length && src[i] !== '"') {
        const d = src[i] as string;
        if (d === '\\' && i + 1 < src.length && '$`"\\\n'.includes(src[i + 1] as string)) {
          w.value += src[i + 1] === '\n' ? '' : src[i + 1];
          i += 2;
        } else if (d === '$') {
          i = dollar(w);
        } else if (d === '`') {
          const end = backquote(i);
          w.value += src.slice(i, end);
          w.dynamic = true;
          i = end;
        } else {
          w.value += d;
          i++;
        }
      }
      if (i >= src.length) complete = false;
      i++;
    } else if (c === '$') {
      i = dollar(current());
    } else if (c === '`') {
      const w = current();
      const end = backquote(i);
      w.value += src.slice(i, end);
      w.dynamic = true;
      i = end;
    } else if ((c === '<' || c === '>') && next === '(') {
      const w = current();
      const end = substitution(i + 1);
      w.value += src.slice(i, end);
      w.dynamic = true;
      i = end;
    } else if (c === '<' || c === '>' || (c === '&' && next === '>')) {
      const op = REDIRECT_OPS.find((o) => src.startsWith(o, i)) as string;
      let fd: string | null = null;
      const w = word as PendingWord | null;
      if (w !== null && !w.quoted && !w.dynamic && /^\d+$/.test(w.value)) {
        fd = w.value;
        word = null;
      } else {
        endWord();
      }
      if (redirect !== null) complete = false;
      redirect = { fd, op };
      i += op.length;
    } else if (c === '|' || c === '&' || c === ';' || c === '(' || c === ')') {
      const two = src.slice(i, i + 2);
      if (two === '&&' || two === '||' || two === '|&') {
        pushOp(two);
        i += 2;
      } else if (two === ';;') {
        pushOp(';');
        i += 2;
      } else {
        pushOp(c);
        i++;
      }
    } else {
      const w = current();
      w.value += c;
      if (c === '*' || c === '?' || c === '[') w.glob = true;
      i++;
    }
  }
  endWord();
  if (redirect !== null) complete = false;
  return { tokens, substitutions, complete };
}

/** Splits tokens at every operator into simple commands (empty ones are dropped). */
export function simpleCommands(tokens: readonly Token[]): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  let cmd: SimpleCommand = { words: [], redirects: [] };
  for (const t of tokens) {
    if (t.kind === 'op') {
      if (cmd.words.length > 0 || cmd.redirects.length > 0) out.push(cmd);
      cmd = { words: [], redirects: [] };
    } else if (t.kind === 'word') {
      cmd.words.push(t);
    } else {
      cmd.redirects.push(t);
    }
  }
  if (cmd.words.length > 0 || cmd.redirects.length > 0) out.push(cmd);
  return out;
}

/** `FOO=bar` at the start of a command. */
export function isAssignment(word: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(word);
}

/** Redirection operators that open a file for writing. */
export function writesFile(r: Redirect): boolean {
  if (r.op === '<&') return false;
  // `>&2` duplicates a descriptor; `>& file` is `&> file`.
  if (r.op === '>&') return !/^(\d+|-)$/.test(r.target.value);
  return ['>', '>>', '>|', '&>', '&>>', '<>'].includes(r.op);
}

const RESERVED = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'time', 'case', 'esac', 'function', 'in']);
/** Commands that run their arguments as a command; value: options that take a separate argument. */
const WRAPPERS: Record<string, string[]> = {
  env: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'],
  command: [],
  builtin: [],
  exec: ['-a'],
  nohup: [],
  nice: ['-n', '--adjustment'],
  time: ['-f', '--format', '-o', '--output'],
  timeout: ['-s', '--signal', '-k', '--kill-after'],
  stdbuf: ['-i', '-o', '-e'],
  ionice: ['-c', '-n', '-p', '-t'],
  xargs: ['-I', '-n', '-P', '-L', '-s', '-d', '-E', '-a', '--arg-file', '--delimiter'],
  setsid: [],
  unbuffer: [],
};

/** Drops assignments, reserved words and wrappers (`env`, `nohup`, `timeout 5`, ...). */
export function commandWords(words: string[]): string[] {
  let i = 0;
  while (i < words.length) {
    const w = words[i] as string;
    const name = basename(w);
    if (RESERVED.has(w) || isAssignment(w)) {
      i++;
    } else if (Object.hasOwn(WRAPPERS, name)) {
      // `command -v NAME` only looks NAME up.
      if (name === 'command' && /^-[pvV]*[vV]/.test(words[i + 1] ?? '')) return [];
      const withArg = WRAPPERS[name] as string[];
      i++;
      while (i < words.length) {
        const a = words[i] as string;
        if (withArg.includes(a)) i += 2;
        else if (a.startsWith('-') || isAssignment(a)) i++;
        else break;
      }
      if (name === 'timeout' && i < words.length) i++; // the duration
    } else {
      break;
    }
  }
  return words.slice(i);
}

export function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}
