/** The values the command line's flags take, checked: numbers, ports, UUIDs, permission rule lists, protected names. */
import { allowableNames, unknownNames } from '../../tools/bash/run/protect.js';

/** Bad command line: one line and `see agentloop --help` (or `agentloop COMMAND --help`), exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command whose help the pointer names (set by the parser); none: the main help. */
  command?: string;
}

/** One of `choices` (`--output-format must be text, json or stream-json, not "xml"`). */
export function oneOf<T extends string>(choices: readonly T[]): (text: string, flag: string) => T {
  const said = `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`;
  return (text, flag) => {
    if (!(choices as readonly string[]).includes(text)) throw new UsageError(`${flag} must be ${said}, not "${text}"`);
    return text as T;
  };
}

/** The value trimmed; an empty one is an error. */
export function nonEmpty(flag: string, value: string, hint = ''): string {
  if (value.trim() === '') throw new UsageError(`${flag} needs a value${hint}`);
  return value.trim();
}

/** `--allow-env NAME`: names of variables. */
export function envNames(names: readonly string[], flag: string): string[] {
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`${flag} takes a variable name, not "${name}"`);
  }
  return [...names];
}

/** An http:// or https:// URL, without trailing slashes. */
export function httpUrl(value: string, flag: string): string {
  try {
    const parsed = new URL(value);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return value.replace(/\/+$/, '');
  } catch {
    // said below
  }
  throw new UsageError(`${flag} takes an http:// or https:// URL, not "${value}"`);
}

/** `--identity-key`: Restate's request-signing public keys. */
export function publicKeys(keys: readonly string[], flag: string): string[] {
  for (const key of keys) {
    if (!/^publickeyv1_\w+$/.test(key)) throw new UsageError(`${flag} takes a Restate public key (publickeyv1_...), not "${key}"`);
  }
  return [...keys];
}

/** `--idempotency-key`: 1 to 256 visible ASCII characters. */
export function idempotencyKey(key: string, flag: string): string {
  if (!/^[\x21-\x7e]{1,256}$/.test(key)) throw new UsageError(`${flag} takes 1 to 256 visible ASCII characters, not "${key}"`);
  return key;
}

/** A durable session id: it goes into Restate's URLs as the object's key. */
export function restateId(what: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${what} needs a session id (submit prints it)`);
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(value)) throw new UsageError(`${what}: "${value}" is not a session id (letters, digits, _ and -)`);
  return value;
}

export function positiveInt(flag: string, value: string, min = 1): number {
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new UsageError(`${flag} takes a whole number${min > 0 ? ` of at least ${min}` : ''}, not "${value}"`);
  }
  return Number(value);
}

/** A number above 0 (`--max-budget-usd 0.25`). */
export function positiveNumber(flag: string, value: string): number {
  const number = /^\d*\.?\d+$|^\d+\.$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(number > 0) || !Number.isFinite(number)) throw new UsageError(`${flag} takes a number above 0, not "${value}"`);
  return number;
}

export function portOf(value: string): number {
  const port = positiveInt('--port', value, 0);
  if (port > 65535) throw new UsageError(`--port must be at most 65535, not ${port}`);
  return port;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--session-id`: a UUID, as Claude Code takes it (stored in lower case). */
export function uuidOf(flag: string, value: string): string {
  if (!UUID.test(value.trim())) throw new UsageError(`${flag} takes a UUID (like 3f2b8c1e-...-...), not "${value}"`);
  return value.trim().toLowerCase();
}

/**
 * Claude Code's tool rule lists: each value may hold several rules separated by commas or spaces, and a rule's
 * parenthesised part stays whole (`"Bash(git log:*) Bash(npm test),Read"` is three rules).
 */
export function splitRules(flag: string, values: readonly string[]): string[] {
  const rules: string[] = [];
  for (const value of values) {
    let depth = 0;
    let rule = '';
    for (const char of value) {
      if (depth === 0 && (char === ',' || /\s/.test(char))) {
        if (rule) rules.push(rule);
        rule = '';
        continue;
      }
      if (char === '(') depth += 1;
      if (char === ')') {
        if (depth === 0) throw new UsageError(`${flag}: ")" without "(" in "${value}"`);
        depth -= 1;
      }
      rule += char;
    }
    if (depth > 0) throw new UsageError(`${flag}: "(" not closed in "${value}"`);
    if (rule) rules.push(rule);
  }
  if (rules.length === 0) throw new UsageError(`${flag} needs at least one rule (like Bash or "Bash(git log:*)")`);
  return rules;
}
/** `--allow-write NAME` (repeated, or NAME,NAME): names of the sandbox's list of files that run later. */
export function allowWriteNames(values: readonly string[], flag: string): string[] {
  const names = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  const unknown = unknownNames(names);
  if (unknown.length > 0) throw new UsageError(`${flag} takes a name of the sandbox's protected files (${allowableNames().join(', ')}), not "${unknown[0]}"`);
  return names;
}

/** `--permission-prompt-tool`: only `stdio` (the host answers can_use_tool control requests). */
export function promptToolOf(value: string): 'stdio' {
  if (value === 'stdio') return value;
  throw new UsageError(`--permission-prompt-tool takes stdio (the host answers can_use_tool requests), not "${value}": an MCP tool as the prompt is not supported`);
}

/** The context window set by `--context-window`, else by AGENTLOOP_CONTEXT_WINDOW (a bad value is a usage error: main.ts checks it first). */
export function contextWindowOf(options: { contextWindow?: number }, env: NodeJS.ProcessEnv): { contextWindow?: number } {
  if (options.contextWindow !== undefined) return { contextWindow: options.contextWindow };
  const value = env.AGENTLOOP_CONTEXT_WINDOW;
  return value === undefined || value === '' ? {} : { contextWindow: positiveInt('AGENTLOOP_CONTEXT_WINDOW', value, 1000) };
}
