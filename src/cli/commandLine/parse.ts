/**
 * The one parser of the command line, walked from the option table (./options.ts): the first word names the command
 * (`worker`, `submit`, ...; anything else is a run), node:util's parseArgs reads the flags as Claude Code takes them
 * (`--flag value`, `--flag=value`, `-p` as a flag, `--` before a prompt that starts with "-"), and a `variadic` list
 * also takes the words after it up to the next flag (`--allowedTools Bash Read`). Each value is parsed and checked
 * by its entry; a flag of another command, or none, is one line naming the command's help.
 */
import { parseArgs } from 'node:util';
import { UsageError } from './argValues.js';
import { COMMAND_NAMES, OPTIONS, type AnyOption, type CommandName, type Flags } from './options.js';

export { UsageError } from './argValues.js';

type Key = keyof Flags;

export interface ParsedLine {
  command: CommandName;
  /** Every flag given, parsed; the defaults of the command's flags that were not. */
  flags: Partial<Flags>;
  /** The flags given on the command line (a default is not). */
  given: ReadonlySet<Key>;
  positionals: string[];
  /**
   * The last word of the line, when a variadic list took it after others (`--disallowedTools Bash(rm:*) go`): with
   * Claude Code it is a rule; a run that gets no prompt otherwise may take it as its prompt (`without`: the list's
   * value without it).
   */
  trailing?: { key: Key; word: string; without: unknown };
}

const ENTRIES = Object.entries(OPTIONS) as [Key, AnyOption][];

/** The long names of an entry (its flag, then its aliases). */
export const namesOf = (spec: AnyOption): string[] => [spec.flag, ...(spec.aliases ?? [])];

/** The command the first word names, and the words after it. */
export function commandOf(argv: readonly string[]): { command: CommandName; rest: string[] } {
  const [first, ...rest] = argv;
  const named = COMMAND_NAMES.find((name) => name !== 'run' && name === first);
  return named ? { command: named, rest } : { command: 'run', rest: [...argv] };
}

/** The entry of `--name` for `command`, if the command takes it. */
function entryOf(command: CommandName, name: string): [Key, AnyOption] | undefined {
  return ENTRIES.find(([, spec]) => spec.commands.includes(command) && namesOf(spec).includes(name));
}

/** Every flag name of the table, as parseArgs reads it (a name reads the same in every command that takes it). */
function parseArgsOptions() {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [, spec] of ENTRIES) {
    for (const name of namesOf(spec)) {
      options[name] = { type: spec.argument ? 'string' : 'boolean', ...(spec.list ? { multiple: true } : {}) };
      if (spec.short && name === spec.flag) options[name].short = spec.short;
    }
  }
  return options;
}

/** The words of each flag given, in order (a variadic list's following words included), and the positionals. */
function readTokens(command: CommandName, given: string[]) {
  const rest = withoutOptionalValues(command, given);
  let tokens;
  try {
    tokens = parseArgs({ args: rest, options: parseArgsOptions(), allowPositionals: true, strict: true, tokens: true }).tokens;
  } catch (error) {
    throw usageErrorOf(error, flagNamesOf(command));
  }
  const texts = new Map<Key, string[]>();
  const positionals: string[] = [];
  let open: { key: Key; words: string[]; taken: number } | undefined; // the variadic list that takes the next words
  let trailing: { key: Key; word: string } | undefined;
  for (const token of tokens) {
    if (token.kind === 'option-terminator') open = undefined;
    if (token.kind === 'positional' && !open) positionals.push(token.value);
    if (token.kind === 'positional' && open) {
      open.words.push(token.value);
      open.taken += 1;
      if (token.index === rest.length - 1 && open.taken >= 2) trailing = { key: open.key, word: token.value };
    }
    if (token.kind !== 'option') continue;
    const entry = entryOf(command, token.name);
    if (!entry) throw notTaken(command, token.name);
    const [key, spec] = entry;
    const words = token.value === undefined ? [] : [token.value];
    texts.set(key, spec.list ? [...(texts.get(key) ?? []), ...words] : words); // a flag given twice: the last one counts
    const variadic = spec.list === 'variadic' && token.inlineValue === false;
    open = variadic ? { key, words: texts.get(key) as string[], taken: 1 } : undefined;
  }
  return { texts, positionals, trailing };
}

/**
 * The words with a value given inline to a flag that takes none but may have one (`--debug=api`, Claude Code's
 * `[filter]`) dropped: the flag is taken, the value not used. A following word is never taken as its value (it is the
 * prompt, or another flag), up to the first `--`.
 */
function withoutOptionalValues(command: CommandName, words: string[]): string[] {
  const end = words.indexOf('--');
  return words.map((word, i) => {
    const match = /^--([^=]+)=/.exec(word);
    if (!match || (end >= 0 && i > end)) return word;
    const entry = entryOf(command, match[1]!);
    return entry?.[1].optionalValue ? `--${match[1]}` : word;
  });
}

/** Reads `argv` for its command: throws `UsageError` (its `command` set, for the pointer to its help). */
export function parseLine(argv: readonly string[]): ParsedLine {
  const { command, rest } = commandOf(argv);
  try {
    const { texts, positionals, trailing } = readTokens(command, rest);
    const flags: Partial<Record<Key, unknown>> = {};
    const given = new Set(texts.keys());
    if (given.has('help')) return { command, flags: { help: true }, given, positionals };
    for (const [key, words] of texts) flags[key] = valueOf(OPTIONS[key] as AnyOption, words);
    for (const [key, spec] of ENTRIES) {
      if (!given.has(key) && spec.default !== undefined && spec.commands.includes(command)) flags[key] = spec.default;
    }
    const line: ParsedLine = { command, flags: flags as Partial<Flags>, given, positionals };
    if (trailing) line.trailing = { ...trailing, without: valueOf(OPTIONS[trailing.key] as AnyOption, (texts.get(trailing.key) as string[]).slice(0, -1)) };
    return line;
  } catch (error) {
    if (error instanceof UsageError && command !== 'run') error.command ??= command;
    throw error;
  }
}

/** The flags among `keys` that are set. */
export function pickFlags<K extends Key>(flags: Partial<Flags>, keys: readonly K[]): Partial<Pick<Flags, K>> {
  const out: Partial<Pick<Flags, K>> = {};
  for (const key of keys) if (flags[key] !== undefined) out[key] = flags[key];
  return out;
}

function valueOf(spec: AnyOption, words: string[]): unknown {
  const flag = `--${spec.flag}`;
  if (!spec.argument) return true;
  const parse = spec.parse as ((value: unknown, flag: string) => unknown) | undefined;
  if (spec.list) return (parse as (value: unknown, flag: string) => unknown)(words, flag);
  const text = words[words.length - 1] as string;
  return parse ? parse(text, flag) : text;
}

/** The long names `command` takes. */
function flagNamesOf(command: CommandName): string[] {
  return ENTRIES.filter(([, spec]) => spec.commands.includes(command)).flatMap(([, spec]) => namesOf(spec));
}

/** A flag of other commands: `view does not take --print`; in a run, `--wait goes with submit`. */
function notTaken(command: CommandName, name: string): UsageError {
  const others = [...new Set(ENTRIES.filter(([, spec]) => namesOf(spec).includes(name)).flatMap(([, spec]) => spec.commands))];
  const error = new UsageError(command === 'run' ? `--${name} goes with ${others.join(', ')}` : `${command} does not take --${name}`);
  error.command = command === 'run' ? others[0] : command;
  return error;
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
