/**
 * Claude Code's permission rules (`--allowedTools`, `--disallowedTools`):
 *
 * - `Bash` (or `Bash(*)`): every command; another tool's name: every call of that tool (names
 *   compare without regard to case: the rule `Bash` is the tool `bash`); an MCP server's name
 *   (`mcp__github`, or `mcp__github__*`): every tool of that server (`mcp__github__create_issue`).
 * - `Bash(npm test)`: exactly that command.
 * - `Bash(git log:*)`: the command `git log` and any command starting with `git log ` (a word
 *   boundary: not `git logx`); `:*` only at the end.
 * - `Bash(npm run *)`, `Bash(git * main)`: `*` matches any characters, spaces too; `Bash(ls *)`
 *   needs a space after `ls` (not `lsof`), and a single trailing ` *` may match nothing (`ls`).
 *
 * A command line is judged by its simple commands, as the bash parser sees them (pipelines, `&&`,
 * `;`, substitutions, the commands inside `$(...)`): a deny rule matching any of them denies; with
 * allow rules given, the command is allowed only when every one of them matches an allow rule
 * (`Bash(git log:*)` does not allow `git log && rm x`). Deny beats allow. A simple command is
 * matched as written, with its words' known values (`x=rm; $x` is `rm`) and without the wrappers
 * `timeout 5`, `nice`, `nohup`, `time`, `stdbuf` (deny rules also see through `env`, `xargs`,
 * `busybox`, ...). A command line that does not parse is never allowed by a pattern.
 * A rule with a specifier on another tool (`Read(./.env)`) denies every call of that tool and
 * allows none.
 *
 * And Claude Code's permission modes (`--permission-mode`, decideInMode): nothing is ever asked here, so a call
 * that would be asked about is denied, as Claude Code does with `-p`. Deny rules apply in every mode.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { isSafeAlongside } from '../tools/bash/judge/checks.js';
import type { PermissionMode } from './modes.js';
import { isReadOnlyScript } from '../tools/bash/judge/readOnly.js';
import { unwrap, type Value } from '../tools/bash/judge/shell/commandWords.js';
import { loadShellParser } from '../tools/bash/judge/shell/load.js';
import { checkSoon, type ReadScript } from '../tools/bash/judge/shell/reader.js';
import type { Script, SimpleCommand } from '../tools/bash/judge/shell/types.js';

export type RulePattern =
  | { kind: 'exact'; command: string }
  | { kind: 'prefix'; prefix: string }
  | { kind: 'wildcard'; regex: RegExp };

export interface PermissionRule {
  /** As written, e.g. `Bash(git log:*)`. */
  text: string;
  /** The tool's name, lower case. */
  tool: string;
  /** What the specifier in parentheses matches; null: every call. */
  pattern: RulePattern | null;
  /** Written with a specifier (even `*`). */
  specified: boolean;
}

export interface PermissionRules {
  allow: PermissionRule[];
  deny: PermissionRule[];
}

export type PermissionDecision =
  | { allowed: true }
  /** `rule`: the deny rule that matched, or null when no allow rule matched; `message`: one sentence for the model. */
  | { allowed: false; rule: string | null; message: string };

/** Parses rules; throws an Error with a one-line message naming the first bad rule. */
export function parseRules(texts: string[]): PermissionRule[] {
  return texts.map(parseRule);
}

function parseRule(raw: string): PermissionRule {
  const text = raw.trim();
  const bad = (why: string) => new Error(`invalid permission rule ${JSON.stringify(raw)}: ${why}`);
  const m = /^([A-Za-z_][\w.-]*?)(?:__\*)?(?:\((.*)\))?$/s.exec(text);
  if (m === null) {
    if (/^[A-Za-z_][\w.-]*\(/.test(text) && !text.endsWith(')')) throw bad('missing ")"');
    throw bad('expected a tool name, e.g. Bash or Bash(git log:*)');
  }
  const tool = (m[1] as string).toLowerCase();
  const spec = m[2]?.trim();
  if (spec === undefined) return { text, tool, pattern: null, specified: false };
  if (spec === '') throw bad('empty parentheses (write Bash for every command)');
  if (spec === '*') return { text, tool, pattern: null, specified: true };
  const colon = spec.indexOf(':*');
  if (colon >= 0 && colon !== spec.length - 2) throw bad('":*" must end the rule, as in Bash(git log:*)');
  if (colon >= 0) {
    const prefix = normalize(spec.slice(0, -2));
    if (prefix === '') throw bad('nothing before ":*"');
    return { text, tool, pattern: { kind: 'prefix', prefix }, specified: true };
  }
  if (!spec.includes('*')) return { text, tool, pattern: { kind: 'exact', command: normalize(spec) }, specified: true };
  return { text, tool, pattern: { kind: 'wildcard', regex: wildcard(normalize(spec)) }, specified: true };
}

function wildcard(spec: string): RegExp {
  const stars = spec.split('*').length - 1;
  const optionalTail = stars === 1 && spec.endsWith(' *');
  const body = optionalTail ? spec.slice(0, -2) : spec;
  const source = body.split('*').map(escapeRegExp).join('.*');
  return new RegExp(`^${source}${optionalTail ? '( .*)?' : ''}$`, 's');
}

/** Starts loading the bash parser commands that are not plain words are split with (see decideInModeSoon). */
export function preparePermissions(): Promise<void> {
  return loadShellParser().then(() => undefined);
}

/**
 * decideInMode with the reader at hand (shell/reader.ts): at once for another tool or a command of plain words,
 * else once the parser has loaded; rejects when it is needed and cannot load.
 */
export function decideInModeSoon(toolName: string, input: unknown, rules: PermissionRules, mode: PermissionMode, cwd: WorkDirs): Promise<PermissionDecision> {
  return checkSoon((read) => decideInMode(toolName, input, rules, mode, read, cwd));
}

/** Whether the rules let the tool call run; a bash command is split into its simple commands with `read`. */
export function decidePermission(toolName: string, input: unknown, rules: PermissionRules, read: ReadScript): PermissionDecision {
  const tool = toolName.toLowerCase();
  const deny = rules.deny.filter((r) => covers(r.tool, tool));
  const allow = rules.allow.filter((r) => covers(r.tool, tool));
  const whole = deny.find((r) => r.pattern === null || tool !== 'bash');
  if (whole !== undefined) return denied(whole);
  const command = tool === 'bash' && isRecord(input) && typeof input.command === 'string' ? input.command : null;
  if (command === null) {
    if (rules.allow.length === 0 || allow.some((r) => r.pattern === null)) return { allowed: true };
    return { allowed: false, rule: null, message: `not allowed: no allow rule matches the tool ${toolName}` };
  }
  if (deny.length === 0 && (rules.allow.length === 0 || allow.some((r) => r.pattern === null))) return { allowed: true };
  const script = read(command);
  const split = script.commands.map(forms);
  for (const rule of deny) {
    if (split.some((f) => f.deny.some((form) => matches(rule, form))) || matches(rule, normalize(command))) return denied(rule);
  }
  if (rules.allow.length === 0) return { allowed: true };
  if (allow.some((r) => r.pattern === null)) return { allowed: true };
  if (script.complete && split.length > 0) {
    const uncovered = split.find((f) => !f.allow.some((form) => allow.some((r) => matches(r, form))));
    if (uncovered === undefined) return { allowed: true };
    return { allowed: false, rule: null, message: `not allowed: no allow rule matches ${JSON.stringify(uncovered.text)}` };
  }
  return { allowed: false, rule: null, message: `not allowed: no allow rule matches ${JSON.stringify(command)}` };
}

/**
 * Whether a call runs in `mode`, the rules applied:
 * - bypassPermissions: every call a deny rule does not match (allow rules change nothing);
 * - default, dontAsk: a read-only command (the check that lets it start mid-stream: readOnly.ts), or a call the allow
 *   rules allow;
 * - acceptEdits: the same, and command lines of `mkdir`, `touch`, `mv`, `cp` (with read-only commands) whose paths,
 *   as written, stay inside the working directory `cwd`;
 * - plan: read-only commands only.
 */
export function decideInMode(
  toolName: string,
  input: unknown,
  rules: PermissionRules,
  mode: PermissionMode,
  given: ReadScript,
  cwd: WorkDirs,
): PermissionDecision {
  // The checks below read the same line: once.
  const read = readingOnce(given);
  const byDeny = decidePermission(toolName, input, { allow: [], deny: rules.deny }, read);
  if (!byDeny.allowed || mode === 'bypassPermissions') return byDeny;
  const command = toolName.toLowerCase() === 'bash' && isRecord(input) && typeof input.command === 'string' ? input.command : null;
  if (command !== null && isSafeAlongside(read, command)) return { allowed: true };
  const what = command === null ? `the tool ${toolName}` : JSON.stringify(command);
  if (mode === 'plan') return { allowed: false, rule: null, message: `not allowed in plan mode: only read-only commands run, and ${what} is not one` };
  if (mode === 'acceptEdits' && command !== null && isFileEdit(read(command), cwd)) return { allowed: true };
  if (rules.allow.length > 0) {
    const byRules = decidePermission(toolName, input, rules, read);
    return byRules.allowed || byRules.rule !== null ? byRules : { ...byRules, message: `${byRules.message} (permission mode ${mode})` };
  }
  const runs = mode === 'acceptEdits' ? 'read-only commands and file commands inside the working directory' : 'read-only commands';
  return { allowed: false, rule: null, message: `not allowed in permission mode ${mode}: without an allow rule only ${runs} run, and ${what} is not one` };
}

/** `read`, keeping the Script of each line read without options (a nested script read with its variables is read anew). */
function readingOnce(read: ReadScript): ReadScript {
  const seen = new Map<string, Script>();
  return (source, options) => {
    if (options !== undefined) return read(source, options);
    let script = seen.get(source);
    if (script === undefined) {
      script = read(source);
      seen.set(source, script);
    }
    return script;
  };
}

const FILE_COMMANDS = new Set(['mkdir', 'touch', 'mv', 'cp']);

/** The working directory, or it and the directories of `--add-dir` (the first is where relative paths start). */
export type WorkDirs = string | readonly [string, ...string[]];

/** Only `mkdir`, `touch`, `mv`, `cp` and read-only commands, plain words, every path as written inside `cwd` (one of them). */
export function isFileEdit(script: Script, cwd: WorkDirs): boolean {
  const dirs = typeof cwd === 'string' ? [cwd] : cwd;
  if (!script.plain || !script.complete || script.redirects.length > 0 || script.commands.length === 0) return false;
  return script.commands.every((command) => {
    const [name, ...args] = command.words.map((w) => w.value);
    if (name === undefined || name === null) return false;
    if (!FILE_COMMANDS.has(name)) return isReadOnlyScript({ ...script, commands: [command] });
    const base = command.cwd ?? dirs[0];
    // Options of letters alone (`-p`, `--parents`); one with a value written into it (`--target-directory=/x`) is not.
    return args.every((arg) => arg !== null && (arg.startsWith('-') ? /^-[A-Za-z]+$|^--[a-z][a-z-]*$/.test(arg) : dirs.some((dir) => inside(resolve(base, arg), dir))));
  });
}

function inside(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Whether a rule naming `ruleTool` is about `tool`: the same name, or a server's rule (`mcp__server`, also written
 * `mcp__server__*`) and one of that server's tools (`mcp__server__tool`), as Claude Code's rules are.
 */
function covers(ruleTool: string, tool: string): boolean {
  if (ruleTool === tool) return true;
  return /^mcp__/.test(ruleTool) && ruleTool.split('__').length === 2 && tool.startsWith(`${ruleTool}__`);
}

function denied(rule: PermissionRule): PermissionDecision {
  return { allowed: false, rule: rule.text, message: `denied by rule ${rule.text}` };
}

function matches(rule: PermissionRule, command: string): boolean {
  const p = rule.pattern;
  if (p === null) return true;
  if (p.kind === 'exact') return command === p.command;
  if (p.kind === 'prefix') return command === p.prefix || command.startsWith(`${p.prefix} `);
  return p.regex.test(command);
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

function normalize(command: string): string {
  return command.trim().replace(/\s+/g, ' ');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
