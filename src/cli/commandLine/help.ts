/**
 * What `--help` prints, walked from the option table: `agentloop --help` every command with its flags,
 * `agentloop COMMAND --help` one command's; and the docs' flag table (docs/cli.md, kept equal by a test). A module of
 * its own: a run never loads it, and `--help` needs neither the parser nor the loop.
 */
import { COMMAND_NAMES, COMMANDS, OPTIONS, type AnyOption, type CommandName } from './options.js';
import { selfCommand } from './self.js';
import { COMMAND_LINES } from './durableHelp.js';

const WIDTH = 110;
const COLUMN = 34;
const ENTRIES = Object.values(OPTIONS) as AnyOption[];

const CONFIGURATION = `Configuration (environment or .env in the working directory):
  ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL, MODEL_ID (or ANTHROPIC_MODEL), NO_COLOR
  AGENTLOOP_HOME: where sessions are saved (default ~/.agentloop; transcripts in sessions/ID.jsonl)
  AGENTLOOP_CONTEXT_WINDOW: the model's context window in tokens, as --context-window

Exit codes: 0 success, 1 the run failed, 2 bad usage or configuration, 3 a durable run still running (result),
130/143 interrupted.`;

/** `text` cut into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, line];
}

/** `-p, --print`, `    --allowedTools, --allowed-tools RULES`. */
function flagNames(spec: AnyOption): string {
  const long = [spec.flag, ...(spec.aliases ?? [])].map((name) => `--${name}`).join(', ');
  return `${spec.short ? `-${spec.short}, ` : '    '}${long}${spec.argument ? ` ${spec.argument}` : ''}`;
}

/** What the flag does for `command` (a durable command's own line where it has one: ./durableHelp.ts). */
function describe(spec: AnyOption, command: CommandName): string {
  const description = COMMAND_LINES[command]?.[spec.flag] ?? spec.description;
  return spec.default === undefined ? description : `${description} (default: ${String(spec.default)})`;
}

/** One flag: its names, and its description wrapped in the column beside them. */
function optionLines(spec: AnyOption, command: CommandName): string {
  const left = `  ${flagNames(spec)}`;
  const [first = '', ...rest] = wrap(describe(spec, command), WIDTH - COLUMN);
  const indent = (line: string) => `${' '.repeat(COLUMN)}${line}`;
  // Names too long for the column: the description starts on the next line.
  const head = left.length + 2 <= COLUMN ? [`${left.padEnd(COLUMN)}${first}`] : [left, indent(first)];
  return [...head, ...rest.map(indent)].join('\n');
}

/** The flags `command` takes, in the table's order (`--help` left out where the main help says it once). */
function optionsOf(command: CommandName, withHelp: boolean): string {
  return ENTRIES.filter((spec) => spec.commands.includes(command) && !spec.hidden && (withHelp || spec.flag !== 'help'))
    .map((spec) => optionLines(spec, command))
    .join('\n');
}

const usageLines = (command: CommandName) => COMMANDS[command].usage.map((usage) => `agentloop ${usage}`);

/** `agentloop --help`: every command's usage, then the flags of a run and of each other command. */
function mainHelp(): string {
  const usage = COMMAND_NAMES.flatMap(usageLines);
  const sections = COMMAND_NAMES.filter((command) => command !== 'run').map(
    (command) => `${usageLines(command).join(' | ')}\n${wrap(COMMANDS[command].summary, WIDTH - 2).map((line) => `  ${line}`).join('\n')}\n${optionsOf(command, false)}`,
  );
  return [
    `Usage: ${usage.join('\n       ')}\n       agentloop COMMAND --help           one command's flags`,
    `${wrap(`A run: ${COMMANDS.run.summary}.`, WIDTH).join('\n')}\n\nOptions of a run:\n${optionsOf('run', true)}`,
    `Commands (each also takes -h, --help):\n\n${sections.join('\n\n')}`,
    CONFIGURATION,
  ].join('\n\n');
}

/** `agentloop COMMAND --help`. */
function commandHelp(command: CommandName): string {
  const [first, ...others] = usageLines(command);
  const usage = [`Usage: ${first}`, ...others.map((line) => `       ${line}`)].join('\n');
  return `${usage}\n\n${wrap(COMMANDS[command].summary, WIDTH).join('\n')}\n\nOptions:\n${optionsOf(command, true)}\n\nsee ${selfCommand()} --help for the other commands`;
}

/** The help of `command`, or of every command. */
export function helpText(command?: CommandName): string {
  return command === undefined || command === 'run' ? mainHelp() : commandHelp(command);
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The docs' table of every flag (Markdown), one row per entry. */
export function flagTable(): string {
  const rows = ENTRIES.filter((spec) => !spec.hidden).map((spec) => {
    const names = [...(spec.short ? [`-${spec.short}`] : []), ...[spec.flag, ...(spec.aliases ?? [])].map((n) => `--${n}`)];
    const value = spec.argument ? `${spec.argument}${spec.list === 'variadic' ? ' ...' : ''}${spec.list === 'repeat' ? ' (repeatable)' : ''}` : '';
    const def = spec.default === undefined ? '' : `\`${String(spec.default)}\``;
    const own = spec.commands.flatMap((command) => (COMMAND_LINES[command]?.[spec.flag] ? [`${command}: ${COMMAND_LINES[command]?.[spec.flag]}`] : []));
    const what = [spec.description, ...own].join('<br>');
    return `| ${names.map((n) => `\`${n}\``).join(', ')} | ${cell(value)} | ${spec.commands.join(', ')} | ${def} | ${cell(what)} |`;
  });
  return ['| flag | value | commands | default | what it does |', '|---|---|---|---|---|', ...rows].join('\n');
}
