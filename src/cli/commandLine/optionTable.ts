/**
 * The shape of the option table (./options.ts): what an entry says about a flag, typed so that every field of `Flags`
 * must have an entry, and an entry's value fields fit its type (a boolean takes no argument, a list says how it
 * repeats, a value other than a plain string says how it is parsed). Modelled on vitest's cli-config.ts.
 */

/** The commands of the command line; `run` is the one without a name (`agentloop [options] [PROMPT]`). */
export const COMMAND_NAMES = ['run', 'sessions', 'mcp', 'view', 'worker', 'balancer', 'submit', 'result', 'messages', 'approvals', 'approve', 'deny'] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

/** What every entry has, whatever its value. */
interface OptionBase<V> {
  /** The long name, without `--`. */
  flag: string;
  /** Other long names taking the same values (`allowed-tools` for `allowedTools`). */
  aliases?: readonly string[];
  /** One letter: `-p`. */
  short?: string;
  /** One line for `--help` and the docs' table. */
  description: string;
  /** The value when the flag is absent (shown in `--help`). */
  default?: V;
  /** The commands that take the flag. */
  commands: readonly CommandName[];
  /** Taken, but not listed in `--help` and the docs. */
  hidden?: boolean;
  /** A flag of no value that may be given one inline (`--debug=api`, as Claude Code's `[filter]`): taken, not used. */
  optionalValue?: true;
}

/**
 * How values are read: a boolean takes none; a list takes `repeat` (`--allow-env A --allow-env B`) or `variadic`
 * (`--allowedTools A B`: the words after the flag up to the next flag, as Claude Code takes them) and is parsed
 * whole; a plain string may be taken as given; any other value is parsed (and checked) from its text.
 */
type ValueSpec<V> = [V] extends [boolean]
  ? { argument?: never; list?: never; parse?: never }
  : [V] extends [readonly unknown[]]
    ? { argument: string; list: 'repeat' | 'variadic'; parse: (texts: readonly string[], flag: string) => V }
    : [string] extends [V]
      ? { argument: string; list?: never; parse?: (text: string, flag: string) => V }
      : { argument: string; list?: never; parse: (text: string, flag: string) => V };

export type OptionSpec<V> = OptionBase<V> & ValueSpec<V>;

/** One entry for every field of `T`, none left out (`-?`), none more. */
export type OptionTable<T> = { [K in keyof T]-?: OptionSpec<Exclude<T[K], undefined>> };

/** An entry of any value, as the parser and the help walk them. */
export interface AnyOption {
  flag: string;
  aliases?: readonly string[];
  short?: string;
  description: string;
  default?: unknown;
  commands: readonly CommandName[];
  hidden?: boolean;
  optionalValue?: true;
  argument?: string;
  list?: 'repeat' | 'variadic';
  parse?: (value: never, flag: string) => unknown;
}

/** What `--help` says about a command: how it is called, and what it does. */
export interface CommandSpec {
  /** The command line, without `agentloop ` (`worker [options]`). */
  usage: readonly string[];
  /** One line. */
  summary: string;
}
