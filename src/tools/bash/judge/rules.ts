/**
 * How Claude Code's permission rules with a specifier match a command line (`Bash(npm test)`, `Bash(git log:*)`,
 * `Bash(npm run *)`): the bash tool's part of the rules (its `permission`: ../permission.ts); the gate
 * (src/permissions/) parses the rules, applies modes and decides.
 *
 * - `Bash(npm test)`: exactly that command.
 * - `Bash(git log:*)`: the command `git log` and any command starting with `git log ` (a word boundary: not
 *   `git logx`); `:*` only at the end.
 * - `Bash(npm run *)`, `Bash(git * main)`: `*` matches any characters, spaces too; `Bash(ls *)` needs a space after
 *   `ls` (not `lsof`), and a single trailing ` *` may match nothing (`ls`). `Bash(*)`: every command.
 *
 * A command line is judged by its simple commands, as the bash parser sees them (pipelines, `&&`, `;`,
 * substitutions, the commands inside `$(...)`): a deny rule matching any of them denies; an allow rule allows only when
 * every one of them is matched (`Bash(git log:*)` does not allow `git log && rm x`), by one rule or, with several
 * allow rules (`allowedBy`), each by one of them. A simple command is matched as written, with its words' known values
 * (`x=rm; $x` is `rm`) and without the wrappers `timeout 5`, `nice`, `nohup`, `time`, `stdbuf` (deny rules also see
 * through `env`, `xargs`, `busybox`, ...). A command line that does not parse is never allowed by a pattern.
 */
import { unwrap, type Value } from './shell/commandWords.js';
import type { ReadScript } from './shell/reader.js';
import type { SimpleCommand } from './shell/types.js';

export type CommandPattern =
  | { kind: 'any' }
  | { kind: 'exact'; command: string }
  | { kind: 'prefix'; prefix: string }
  | { kind: 'wildcard'; regex: RegExp };

/** The pattern of a specifier; throws an Error with a one-line message when it cannot be one. */
export function commandPattern(specifier: string): CommandPattern {
  const spec = specifier.trim();
  if (spec === '') throw new Error('empty parentheses (write Bash for every command)');
  if (spec === '*') return { kind: 'any' };
  const colon = spec.indexOf(':*');
  if (colon >= 0 && colon !== spec.length - 2) throw new Error('":*" must end the rule, as in Bash(git log:*)');
  if (colon >= 0) {
    const prefix = normalize(spec.slice(0, -2));
    if (prefix === '') throw new Error('nothing before ":*"');
    return { kind: 'prefix', prefix };
  }
  if (!spec.includes('*')) return { kind: 'exact', command: normalize(spec) };
  return { kind: 'wildcard', regex: wildcard(normalize(spec)) };
}

function wildcard(spec: string): RegExp {
  const stars = spec.split('*').length - 1;
  const optionalTail = stars === 1 && spec.endsWith(' *');
  const body = optionalTail ? spec.slice(0, -2) : spec;
  const source = body.split('*').map(escapeRegExp).join('.*');
  return new RegExp(`^${source}${optionalTail ? '( .*)?' : ''}$`, 's');
}

/** Whether a deny rule of `patterns` matches any part of `command`, or the line as a whole. */
export function denies(patterns: readonly CommandPattern[], command: string, read: ReadScript): boolean {
  if (patterns.some((p) => p.kind === 'any')) return true;
  const split = read(command).commands.map(forms);
  return patterns.some((p) => split.some((f) => f.deny.some((form) => matches(p, form))) || matches(p, normalize(command)));
}

/** The first simple command of `command` no allow pattern matches (null: every one is covered), or the line when it does not parse. */
export function uncovered(patterns: readonly CommandPattern[], command: string, read: ReadScript): string | null {
  if (patterns.some((p) => p.kind === 'any')) return null;
  const script = read(command);
  if (!script.complete || script.commands.length === 0) return normalize(command);
  const split = script.commands.map(forms);
  return split.find((f) => !f.allow.some((form) => patterns.some((p) => matches(p, form))))?.text ?? null;
}

function matches(pattern: CommandPattern, command: string): boolean {
  if (pattern.kind === 'any') return true;
  if (pattern.kind === 'exact') return command === pattern.command;
  if (pattern.kind === 'prefix') return command === pattern.prefix || command.startsWith(`${pattern.prefix} `);
  return pattern.regex.test(command);
}

interface Forms {
  text: string;
  /** The forms allow rules are matched against. */
  allow: string[];
  /** The forms deny rules are matched against (more wrappers dropped). */
  deny: string[];
}

const BENIGN_WRAPPERS = new Set(['timeout', 'nice', 'nohup', 'time', 'stdbuf', 'ionice']);

function forms(command: SimpleCommand): Forms {
  const text = normalize(command.text);
  const values = command.words.map((w) => w.value);
  const prefix = command.assignments.map((a) => (a.value.value === null ? null : `${a.name}=${a.value.value}`));
  const allow = [text];
  const deny = [text];
  const resolved = join([...prefix, ...values]);
  if (resolved !== null) allow.push(resolved);
  const { words, via } = unwrap(values);
  const bare = join(words);
  if (bare !== null) {
    deny.push(bare);
    if (via.length > 0 && via.every((w) => BENIGN_WRAPPERS.has(w)) && !prefix.length) allow.push(bare);
  }
  if (resolved !== null) deny.push(resolved);
  return { text, allow, deny };
}

function join(values: Value[]): string | null {
  return values.every((v) => v !== null) ? normalize(values.join(' ')) : null;
}

export function normalize(command: string): string {
  return command.trim().replace(/\s+/g, ' ');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
