/** The values the command line's flags take, checked: numbers, ports, UUIDs, permission rule lists, protected names. */
import { allowableNames, unknownNames } from '../tools/bash/run/protect.js';

/** Bad command line: one line and `see agentloop --help`, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function positiveInt(flag: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min) {
    throw new UsageError(`${flag} takes a whole number${min > 0 ? ` of at least ${min}` : ''}, not "${value}"`);
  }
  return Number(value);
}

/** A number above 0 (`--max-budget-usd 0.25`). */
export function positiveNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = /^\d*\.?\d+$|^\d+\.$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(number > 0) || !Number.isFinite(number)) throw new UsageError(`${flag} takes a number above 0, not "${value}"`);
  return number;
}

export function portOf(value: string | undefined): number | undefined {
  const port = positiveInt('--port', value, 0);
  if (port !== undefined && port > 65535) throw new UsageError(`--port must be at most 65535, not ${port}`);
  return port;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `--session-id`: a UUID, as Claude Code takes it (stored in lower case). */
export function uuidOf(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!UUID.test(value.trim())) throw new UsageError(`${flag} takes a UUID (like 3f2b8c1e-...-...), not "${value}"`);
  return value.trim().toLowerCase();
}

/**
 * Claude Code's tool rule lists: each value may hold several rules separated by commas or spaces, and a rule's
 * parenthesised part stays whole (`"Bash(git log:*) Bash(npm test),Read"` is three rules).
 */
export function splitRules(flag: string, values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
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

/** Edit distance, for "did you mean" on a mistyped flag. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * node:util's parse errors, said in one line: "unknown option --foo (did you mean --model?)",
 * "--model needs a value".
 */
export function usageErrorOf(error: unknown, flags: string[]): UsageError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const flag = /'(-{1,2}[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const name = flag.replace(/^-+/, '').split('=')[0]!;
    const near = flags.filter((f) => f.length > 1).find((f) => distance(f.toLowerCase(), name.toLowerCase()) <= Math.min(2, f.length / 3));
    return new UsageError(`unknown option ${flag}${near ? ` (did you mean --${near}?)` : ''}`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const long = /--[\w-]+/.exec(message)?.[0];
    if (/argument missing/.test(message) && long) return new UsageError(`${long} needs a value`);
    if (/ambiguous/.test(message) && long) return new UsageError(`${long} needs a value (one that starts with "-" goes as ${long}=VALUE)`);
    if (/does not take an argument/.test(message) && long) return new UsageError(`${long} takes no value`);
  }
  return new UsageError(message.split('\n')[0]!);
}

/** `--allow-write NAME` (repeated, or NAME,NAME): names of the sandbox's list of files that run later. */
export function allowWriteOf(values: string[] | undefined, sandbox: boolean): string[] | undefined {
  if (values === undefined) return undefined;
  if (!sandbox) throw new UsageError('--allow-write goes with --sandbox');
  const names = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  const unknown = unknownNames(names);
  if (unknown.length > 0) throw new UsageError(`--allow-write takes a name of the sandbox's protected files (${allowableNames().join(', ')}), not "${unknown[0]}"`);
  return names;
}

/** `--permission-prompt-tool`: only `stdio` (the host answers can_use_tool control requests). */
export function promptToolOf(value: string): 'stdio' {
  if (value === 'stdio') return value;
  throw new UsageError(`--permission-prompt-tool takes stdio (the host answers can_use_tool requests), not "${value}": an MCP tool as the prompt is not supported`);
}
