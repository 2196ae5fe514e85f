/**
 * A bash command line as tree-sitter-bash parses it, walked the way bash would run it: its simple
 * commands in order (those of substitutions first), each with its words resolved where static,
 * what flows into it (a pipe from `echo`, a here-document, a here-string), and the directory a
 * `cd` before it moved to. Statements bash runs in a subshell (pipeline stages, `( ... )`,
 * substitutions) keep their assignments and `cd` to themselves.
 *
 * A syntax error does not throw: `complete` is false and what could be parsed is listed.
 */
import type { SyntaxNode, TsParser } from './load.js';
import { changedDirectory } from './commandWords.js';
import { outputOf } from './knownOutput.js';
import type { Flow, Redirect, Script, ShellFunction, SimpleCommand, Word } from './types.js';
import { children, resolveWord, resolveWords, type WordScope } from './words.js';

export interface ParseOptions {
  /** Variables known before the command line starts (e.g. exported to a `bash -c` script). */
  env?: ReadonlyMap<string, string | null>;
  /** The directory it starts in, when known (see SimpleCommand.cwd). */
  cwd?: string | null;
}

export function parseScript(parser: TsParser, source: string, options: ParseOptions = {}): Script {
  const tree = parser.parse(source);
  if (tree === null) return { source, commands: [], redirects: [], functions: [], plain: false, complete: false };
  try {
    const walker = new Walker(source);
    const root = tree.rootNode;
    const start: Context = { env: new Map(options.env ?? []), where: { cwd: options.cwd ?? null }, stdin: null, substituted: false, redirects: [] };
    walker.statement(root, start);
    return { source, commands: walker.commands, redirects: walker.redirects, functions: walker.functions, plain: walker.plain && !root.hasError && !walker.misread, complete: !root.hasError && !walker.misread, ...(walker.misread ? { misread: true as const } : {}) };
  } finally {
    tree.delete();
  }
}

interface Context {
  env: Map<string, string | null>;
  /** Shared by the statements of one shell; a subshell gets a copy. */
  where: { cwd: string | null };
  /** What flows into the first command of the statement. */
  stdin: Flow | null;
  substituted: boolean;
  /** Redirections written around the statement, for its command. */
  redirects: Redirect[];
}

const PLAIN_TYPES = new Set(['program', 'list', 'pipeline', 'command', 'command_name', 'comment', 'redirected_statement', 'file_redirect']);
const NONE: Flow = { kind: 'unknown' };

class Walker {
  commands: SimpleCommand[] = [];
  redirects: Redirect[] = [];
  functions: ShellFunction[] = [];
  plain = true;
  /** tree-sitter-bash ran a command on past the end of its line (see `command`). */
  misread = false;

  constructor(private readonly source: string) {}

  /** Walks one statement (or any node holding statements) and gives what it writes to stdout. */
  statement(node: SyntaxNode, ctx: Context): Flow {
    if (node.isNamed && !PLAIN_TYPES.has(node.type)) this.plain = false;
    switch (node.type) {
      case 'command':
        return this.command(node, ctx);
      case 'redirected_statement':
        return this.redirected(node, ctx);
      case 'pipeline':
        return this.pipeline(node, ctx);
      case 'subshell':
        return this.sequence(children(node), subshell(ctx));
      case 'variable_assignment':
        this.assign(node, ctx, ctx.env);
        return { kind: 'text', text: '' };
      case 'variable_assignments':
      case 'declaration_command':
        for (const c of children(node)) {
          if (c.type === 'variable_assignment') this.assign(c, ctx, ctx.env);
          else if (c.isNamed) this.args(c, ctx);
        }
        return { kind: 'text', text: '' };
      case 'unset_command':
        for (const c of children(node).filter((c) => c.isNamed)) ctx.env.set(c.text, null);
        return { kind: 'text', text: '' };
      case 'for_statement':
        return this.forLoop(node, ctx);
      case 'function_definition':
        return this.functionDefinition(node, ctx);
      case 'command_substitution':
      case 'process_substitution':
        return this.substitution(node, ctx);
      default:
        return this.sequence(children(node), ctx);
    }
  }

  /** Statements one after the other; `&` and `;` between them. */
  private sequence(nodes: SyntaxNode[], ctx: Context): Flow {
    let out: Flow = { kind: 'text', text: '' };
    for (const node of nodes) {
      if (!node.isNamed) {
        if (node.type === '&') this.plain = false;
        continue;
      }
      out = concat(out, this.statement(node, ctx));
    }
    return out;
  }

  /**
   * A simple command. tree-sitter-bash sometimes runs one on past an unescaped newline (`a | b | c\nrm x && d` reads
   * as `c rm x`); bash ends it there, so what follows is a command of its own, and the line is marked misread.
   */
  private command(node: SyntaxNode, ctx: Context): Flow {
    const parts = children(node);
    let out: Flow = NONE;
    for (let from = 0, i = 1; i <= parts.length; i++) {
      const next = parts[i];
      if (next !== undefined && !/(^|[^\\])\n/.test(this.source.slice((parts[i - 1] as SyntaxNode).endIndex, next.startIndex))) continue;
      const segment = parts.slice(from, i);
      if (from > 0) this.misread = true;
      const text = from === 0 && next === undefined ? node.text : this.source.slice((segment[0] as SyntaxNode).startIndex, (segment.at(-1) as SyntaxNode).endIndex);
      if (segment.some((c) => c.isNamed && c.type !== 'comment')) out = this.simple(text, segment, ctx);
      from = i;
    }
    return out;
  }

  private simple(text: string, parts: SyntaxNode[], ctx: Context): Flow {
    const scope = this.scope(ctx);
    const assignments: SimpleCommand['assignments'] = [];
    const words: Word[] = [];
    const redirects = [...ctx.redirects];
    let stdin = ctx.stdin;
    for (const c of parts) {
      if (c.type === 'variable_assignment') {
        this.plain = false;
        const name = c.childForFieldName('name')?.text ?? '';
        const valueNode = c.childForFieldName('value');
        assignments.push({ name, value: valueNode ? resolveWord(valueNode, scope) : { text: '', value: '', glob: false, dynamic: false } });
      } else if (c.type === 'command_name') {
        for (const n of children(c)) words.push(...resolveWords(n, scope));
      } else if (c.type === 'file_redirect' || c.type === 'herestring_redirect') {
        const r = this.redirect(c, ctx);
        redirects.push(...r.redirects);
        if (r.stdin !== null) stdin = r.stdin;
      } else if (c.isNamed && c.type !== 'comment') {
        words.push(...resolveWords(c, scope));
      }
    }
    const command: SimpleCommand = { text, assignments, words, redirects, stdin, cwd: ctx.where.cwd, substituted: ctx.substituted };
    this.commands.push(command);
    // `cd DIR` (or `pushd DIR`) in this shell moves the commands after it.
    ctx.where.cwd = changedDirectory(words.map((w) => w.value), ctx.where.cwd) ?? ctx.where.cwd;
    if (redirects.some((r) => r.target !== null && /^(>|>>|&>|&>>|>\||>&)$/.test(r.op) && r.fd !== '2')) return NONE;
    return outputOf(command);
  }

  private redirected(node: SyntaxNode, ctx: Context): Flow {
    const redirects: Redirect[] = [];
    let stdin = ctx.stdin;
    let body: SyntaxNode | null = null;
    const after: SyntaxNode[] = [];
    for (const c of children(node)) {
      if (!c.isNamed) continue;
      if (c.type === 'file_redirect' || c.type === 'heredoc_redirect' || c.type === 'herestring_redirect') {
        const r = this.redirect(c, ctx);
        redirects.push(...r.redirects);
        if (r.stdin !== null) stdin = r.stdin;
        after.push(...r.after);
      } else {
        body ??= c;
      }
    }
    const out = body === null ? NONE : this.statement(body, { ...ctx, stdin, redirects });
    // `cat <<EOF | sh` and `cat <<EOF && ls`: tree-sitter keeps the rest of the line in the here-document.
    let piped = false;
    for (const c of after) {
      if (!c.isNamed) piped = c.type === '|' || c.type === '|&';
      else if (c.type === 'pipeline' && !children(c)[0]?.isNamed) this.pipeline(c, { ...ctx, stdin: out });
      else this.statement(c, piped ? { ...ctx, stdin: out } : ctx);
    }
    return out;
  }

  /** A redirection: what it feeds to stdin (here-documents, here-strings) and what follows it on the line. */
  private redirect(node: SyntaxNode, ctx: Context): { redirects: Redirect[]; stdin: Flow | null; after: SyntaxNode[] } {
    const scope = this.scope(ctx);
    const parts = children(node);
    const fd = parts.find((c) => c.type === 'file_descriptor')?.text ?? null;
    const op = parts.find((c) => !c.isNamed && /^[<>&]/.test(c.type))?.type ?? '';
    if (node.type === 'herestring_redirect') {
      this.plain = false;
      const target = parts.find((c) => c.isNamed && c.type !== 'file_descriptor');
      const value = target ? resolveWord(target, scope).value : null;
      return { redirects: [{ op: '<<<', fd, target: null }], stdin: value === null ? NONE : { kind: 'text', text: `${value}\n` }, after: [] };
    }
    if (node.type === 'heredoc_redirect') {
      this.plain = false;
      const bodyNode = parts.find((c) => c.type === 'heredoc_body');
      for (const c of bodyNode ? children(bodyNode) : []) if (c.isNamed && c.type !== 'heredoc_content') this.statement(c, ctx);
      const redirects: Redirect[] = [{ op, fd, target: null }];
      const after: SyntaxNode[] = [];
      for (const c of parts) {
        if (c.type === 'file_redirect') redirects.push(...this.redirect(c, ctx).redirects);
        else if (!['heredoc_start', 'heredoc_body', 'heredoc_end', 'file_descriptor', op].includes(c.type)) after.push(c);
      }
      return { redirects, stdin: { kind: 'text', text: heredocText(bodyNode) }, after };
    }
    const targetNode = node.childForFieldName('destination') ?? parts.filter((c) => c.isNamed && c.type !== 'file_descriptor').at(-1);
    const target = targetNode ? resolveWord(targetNode, scope) : null;
    const redirect: Redirect = { op, fd, target };
    this.redirects.push(redirect);
    return { redirects: [redirect], stdin: op === '<' ? NONE : null, after: [] };
  }

  private pipeline(node: SyntaxNode, ctx: Context): Flow {
    let stdin = ctx.stdin;
    let out: Flow = NONE;
    for (const stage of children(node)) {
      if (!stage.isNamed) continue;
      out = this.statement(stage, { ...subshell(ctx), stdin });
      stdin = out;
    }
    return out;
  }

  private substitution(node: SyntaxNode, ctx: Context): Flow {
    return this.sequence(children(node), { ...subshell(ctx), stdin: null, substituted: true, redirects: [] });
  }

  private assign(node: SyntaxNode, ctx: Context, env: Map<string, string | null>): void {
    const name = node.childForFieldName('name')?.text;
    const valueNode = node.childForFieldName('value');
    if (name === undefined) return;
    const value = valueNode ? resolveWord(valueNode, this.scope(ctx)).value : '';
    const append = children(node).some((c) => c.type === '+=');
    const old = env.has(name) ? (env.get(name) ?? null) : null;
    env.set(name, append ? (old === null || value === null ? null : old + value) : value);
  }

  /** `for x in a b; do ...; done`: the body once per known value (at most 16), else once with x unknown. */
  private forLoop(node: SyntaxNode, ctx: Context): Flow {
    const name = node.childForFieldName('variable')?.text ?? '';
    const body = node.childForFieldName('body');
    const valueNodes = children(node).filter((c) => c.isNamed && !['do_group', 'compound_statement', 'variable_name', 'comment'].includes(c.type));
    const values = valueNodes.flatMap((v) => resolveWords(v, this.scope(ctx)).map((w) => w.value));
    const runs = values.length > 0 && values.length <= 16 && values.every((v) => v !== null) ? values : [null];
    for (const value of runs) {
      ctx.env.set(name, value);
      if (body) this.statement(body, ctx);
    }
    return NONE;
  }

  private functionDefinition(node: SyntaxNode, ctx: Context): Flow {
    const name = node.childForFieldName('name')?.text ?? '';
    const body = node.childForFieldName('body');
    const before = this.commands.length;
    if (body) this.statement(body, subshell(ctx));
    const selfCalls = this.commands.slice(before).filter((c) => c.words[0]?.value === name).length;
    this.functions.push({ name, selfCalls, body: body?.text ?? '' });
    return { kind: 'text', text: '' };
  }

  /** Operands of `export`/`declare` that are not assignments: only their substitutions matter. */
  private args(node: SyntaxNode, ctx: Context): void {
    resolveWords(node, this.scope(ctx));
  }

  private scope(ctx: Context): WordScope {
    return {
      env: ctx.env,
      substitute: (node) => this.substitution(node, ctx),
      notPlain: () => {
        this.plain = false;
      },
    };
  }
}

/** What a subshell starts with: copies of the variables and the directory. */
function subshell(ctx: Context): Context {
  return { ...ctx, env: new Map(ctx.env), where: { ...ctx.where } };
}

function heredocText(body: SyntaxNode | undefined): string {
  return body?.text ?? '';
}

function concat(a: Flow, b: Flow): Flow {
  if (a.kind === 'text' && b.kind === 'text') return { kind: 'text', text: a.text + b.text };
  if (a.kind === 'decoded') return a;
  if (b.kind === 'decoded') return b;
  if (a.kind === 'text' && a.text === '') return b;
  return NONE;
}
