/**
 * Values of words: quotes and backslashes removed, and the expansions that are known when the
 * command line is read expanded (a variable assigned earlier in it, `$(echo rm)`, `$HOME` as `~`).
 * Anything else leaves the value unknown (null).
 */
import type { SyntaxNode } from './load.js';
import type { Flow, Word } from './types.js';

export interface WordScope {
  /** Variables assigned earlier in the command line; null: assigned a value not known. */
  env: Map<string, string | null>;
  /** Walks the statements of `$(...)`, backquotes or `<(...)` (listing their commands) and gives their output. */
  substitute(node: SyntaxNode): Flow;
  /** Called for anything that is not a plain word. */
  notPlain(): void;
}

interface Piece {
  value: string | null;
  glob: boolean;
  dynamic: boolean;
  reads?: Flow;
}

/** A word as an argument: an unquoted expansion standing alone is split at white space. */
export function resolveWords(node: SyntaxNode, scope: WordScope): Word[] {
  const piece = evaluate(node, scope, false);
  const word: Word = { text: node.text, ...piece };
  if (piece.value !== null && SPLIT.has(node.type)) {
    const fields = piece.value.split(/[ \t\n]+/).filter((f) => f !== '');
    return fields.map((value) => ({ ...word, value, glob: /[*?[]/.test(value) }));
  }
  return [word];
}

/** A word that is not split: an assignment's value, a redirection's target. */
export function resolveWord(node: SyntaxNode, scope: WordScope): Word {
  return { text: node.text, ...evaluate(node, scope, false) };
}

const SPLIT = new Set(['simple_expansion', 'expansion', 'command_substitution']);

function evaluate(node: SyntaxNode, scope: WordScope, quoted: boolean): Piece {
  switch (node.type) {
    case 'word':
      return unescapeWord(node.text, quoted);
    case 'number':
    case 'string_content':
      return { value: quoted ? unescapeQuoted(node.text) : node.text, glob: false, dynamic: false };
    case 'raw_string':
      return { value: node.text.slice(1, -1), glob: false, dynamic: false };
    case 'ansi_c_string':
      scope.notPlain();
      return { value: decodeAnsiC(node.text.slice(2, -1)), glob: false, dynamic: false };
    case 'string':
      return join(children(node).filter((c) => c.isNamed), scope, true);
    case 'concatenation':
      return join(children(node), scope, quoted);
    case 'simple_expansion':
    case 'expansion':
      scope.notPlain();
      return { value: expand(node, scope), glob: false, dynamic: true };
    case 'command_substitution':
    case 'process_substitution': {
      scope.notPlain();
      const out = scope.substitute(node);
      if (node.type === 'process_substitution') {
        return { value: null, glob: false, dynamic: true, ...(node.text.startsWith('<') ? { reads: out } : {}) };
      }
      const value = out.kind === 'text' ? out.text.replace(/\n+$/, '') : null;
      return { value, glob: false, dynamic: true };
    }
    default:
      // Arithmetic, brace expressions, extglobs, anything not known: its substitutions still run.
      scope.notPlain();
      for (const c of children(node)) if (c.type.endsWith('substitution')) scope.substitute(c);
      return { value: null, glob: false, dynamic: true };
  }
}

function join(parts: SyntaxNode[], scope: WordScope, quoted: boolean): Piece {
  let value: string | null = '';
  let glob = false;
  let dynamic = false;
  for (const part of parts) {
    const p = part.isNamed ? evaluate(part, scope, quoted) : { value: part.text, glob: false, dynamic: false };
    value = value === null || p.value === null ? null : value + p.value;
    glob ||= p.glob;
    dynamic ||= p.dynamic;
  }
  return { value, glob, dynamic };
}

/** `$x`, `${x}`, `${x:-default}`; `$HOME` is `~` (the guard knows what that is). */
function expand(node: SyntaxNode, scope: WordScope): string | null {
  const name = children(node).find((c) => c.type === 'variable_name')?.text;
  if (name === undefined) return null;
  const rest = children(node).filter((c) => !['$', '${', '}', 'variable_name'].includes(c.type));
  const plain = rest.length === 0 || (rest.length === 1 && [':?', '?'].includes(rest[0]?.type ?? ''));
  const known = scope.env.has(name) ? (scope.env.get(name) ?? null) : name === 'HOME' ? '~' : null;
  // `${x:-y}` and `${x:=y}` are x when x is set and not empty.
  const fallback = rest.length >= 1 && [':-', ':='].includes(rest[0]?.type ?? '') && known !== null && known !== '';
  return plain || fallback ? known : null;
}

function unescapeWord(text: string, quoted: boolean): Piece {
  if (quoted) return { value: unescapeQuoted(text), glob: false, dynamic: false };
  let value = '';
  let glob = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\') {
      if (text[i + 1] !== '\n') value += text[i + 1] ?? '';
      i++;
    } else {
      if (c === '*' || c === '?' || c === '[') glob = true;
      value += c;
    }
  }
  return { value, glob, dynamic: false };
}

/** Inside double quotes a backslash only escapes `$`, backquote, `"`, `\` and a newline. */
function unescapeQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

const C_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };

/** The body of `$'...'`. */
export function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/g, (_, e: string) => {
    if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    if (e.startsWith('c')) return String.fromCharCode(e.charCodeAt(1) & 31);
    return C_ESCAPES[e] ?? `\\${e}`;
  });
}

export function children(node: SyntaxNode): SyntaxNode[] {
  return node.children.filter((c): c is SyntaxNode => c !== null);
}
