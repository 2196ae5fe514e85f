/**
 * The command line, as Claude Code's: `agentloop -p [flags] "PROMPT"` runs once, `agentloop "PROMPT"` opens the REPL
 * with that first question; `sessions`, `view`, and the durable commands (`worker`, `submit`, `result`, `messages`,
 * `view --restate`) are the other commands. The flags are read by the one parser (./parse.ts) from the option table
 * (./options.ts); here each command's words become its options, and what goes together is checked.
 */
import { isMistakeName } from '../../mistakes/names.js';
import type { PermissionMode } from '../../permissions/modes.js';
import { restateId, UsageError } from './argValues.js';
import { durableOptions, restateOf, type DurableOptions } from './durableOptions.js';
import { OPTIONS, type CommandName, type Flags, type OutputFormat } from './options.js';
import { TAKEN } from './claudeFlags.js';
import { parseLine, type ParsedLine } from './parse.js';
import { checkThinkingRoom } from './sdkFlags.js';
import { selfCommand } from './self.js';

export { contextWindowOf, UsageError } from './argValues.js';
export type { DurableOptions } from './durableOptions.js';
export type { OutputFormat } from './options.js';

/**
 * The flags a run reads through fields of its own (below: `print`, `outputFormat`, `permissionMode`, `demo`,
 * `compare`) or that end the command line (`help`, `version`). Every other flag a run takes is kept as parsed, under
 * its own name: a new flag needs its entry in ./options.ts and its type in ./flags.ts, and is listed nowhere else.
 */
const READ_APART = ['print', 'outputFormat', 'permissionMode', 'dangerouslySkipPermissions', 'demo', 'compare', 'help', 'version'] as const;
type ReadApart = (typeof READ_APART)[number];

export interface CliOptions extends Partial<Omit<Flags, ReadApart>> {
  /** `sessions` lists the saved sessions; `view` serves the step-through viewer; `help` of a command or of all. */
  command: 'run' | 'help' | 'version' | 'sessions' | 'mcp' | 'view';
  /** `mcp list` or `mcp get NAME`. */
  mcpAction?: { verb: 'list' } | { verb: 'get'; name: string };
  /** `-p`: run once and print the result (also implied by `--output-format json|stream-json`). */
  print: boolean;
  /** The positional prompt: with `print`, the question of the run; without, the REPL's first question. */
  prompt?: string;
  demo: boolean;
  outputFormat: OutputFormat;
  /** `--permission-mode` (`manual` is `default`), `--dangerously-skip-permissions` (`bypassPermissions`). */
  permissionMode?: PermissionMode;
  /** `view [ID]`: the session to open. */
  viewId?: string;
  /** `view --compare A B`: two sessions side by side (a mistaken run and a correct one). */
  compare?: [string, string];
  /**
   * `-p --disallowedTools "Bash(rm:*)" go`: the rule list took the last word, as Claude Code's does; when the run gets
   * no prompt from stdin either, that word is the prompt and these are the rules without it.
   */
  lastWordPrompt?: { prompt: string } & Partial<Pick<Flags, 'allowedTools' | 'disallowedTools' | 'tools'>>;
  /** `help`: the command whose help was asked for (`agentloop worker --help`); none: the main help. */
  helpFor?: CommandName;
  /** Claude Code's flags given that agentloop takes with no feature behind them (./claudeFlags.ts): one stderr line each. */
  takenFlags?: string[];
}

/** Any command line: a local command's options, or a durable command's. */
export type CommandLine = CliOptions | DurableOptions;

const quiet = { print: false, demo: false, outputFormat: 'text' } as const;

/** Reads a whole command line; throws `UsageError`, whose `command` names the help to point to. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const line = parseLine(argv);
  try {
    return optionsOf(line);
  } catch (error) {
    if (error instanceof UsageError && line.command !== 'run') error.command ??= line.command;
    throw error;
  }
}

function optionsOf(line: ParsedLine): CommandLine {
  if (line.flags.help) return { command: 'help', ...quiet, ...(line.command !== 'run' ? { helpFor: line.command } : {}) };
  if (line.flags.version) return { command: 'version', ...quiet };
  switch (line.command) {
    case 'run':
      return runOptions(line);
    case 'sessions':
      if (line.positionals.length > 0) throw new UsageError(`unexpected argument "${line.positionals[0]}" after sessions`);
      return { command: 'sessions', ...quiet, outputFormat: line.flags.listFormat ?? 'text' };
    case 'mcp':
      return mcpOptions(line);
    case 'view':
      return line.given.has('restate') ? durableView(line) : viewOptions(line);
    default:
      return durableOptions(line.command, line);
  }
}

/** A local command line (a run, `sessions`, `view`): the durable commands are refused. */
export function parseCliArgs(argv: readonly string[]): CliOptions {
  const options = parseCommandLine(argv);
  if (!isLocal(options)) throw new UsageError(`${options.command} is a durable command`);
  return options;
}

export function isLocal(options: CommandLine): options is CliOptions {
  return ['run', 'help', 'version', 'sessions', 'mcp'].includes(options.command) || (options.command === 'view' && !('restate' in options));
}

/** A run's flags as parsed, but those it reads apart and Claude Code's that it takes with a line on stderr. */
function keptFlags(flags: Partial<Flags>): Partial<Omit<Flags, ReadApart>> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flags)) {
    if ((READ_APART as readonly string[]).includes(key) || OPTIONS[key as keyof Flags].flag in TAKEN) continue;
    kept[key] = value;
  }
  return kept as Partial<Omit<Flags, ReadApart>>;
}

/** The flags of `given` that agentloop takes with one line on stderr (./claudeFlags.ts). */
function takenOf(given: ParsedLine['given']): string[] {
  return [...given].map((key) => OPTIONS[key].flag).filter((flag) => flag in TAKEN);
}

function runOptions({ flags, positionals, trailing, given }: ParsedLine): CliOptions {
  if (positionals.length > 1) {
    throw new UsageError(`unexpected argument "${positionals[1]}": the prompt is one argument (put it in quotes)`);
  }
  const [first] = positionals;
  if (first !== undefined && first.trim() === '') throw new UsageError('the prompt is empty');
  const format = flags.outputFormat ?? 'text';
  const options: CliOptions = {
    command: 'run',
    // A machine-readable result or input means a run without the REPL.
    print: flags.print === true || format !== 'text' || flags.inputFormat === 'stream-json',
    demo: flags.demo ?? false,
    outputFormat: format,
    ...keptFlags(flags),
  };
  if (first !== undefined) options.prompt = first;
  else if (trailing && trailing.word.trim() !== '') options.lastWordPrompt = { prompt: trailing.word, [trailing.key]: trailing.without };
  const mode = modeOfFlags(flags.permissionMode, flags.dangerouslySkipPermissions === true);
  if (mode !== undefined) options.permissionMode = mode;
  const taken = takenOf(given);
  if (taken.length) options.takenFlags = taken;
  // --safe-mode: no customizations agentloop reads: no CLAUDE.md (--bare), none of the scopes' MCP servers.
  if (flags.safeMode) Object.assign(options, { bare: true, strictMcpConfig: true });
  // Stepping is done in the page: --step brings the viewer up.
  if (options.step) options.view = true;
  checkCombinations(options);
  return options;
}

/** `--permission-mode` and `--dangerously-skip-permissions`, as one mode. */
function modeOfFlags(given: PermissionMode | undefined, skip: boolean): PermissionMode | undefined {
  if (given === undefined) return skip ? 'bypassPermissions' : undefined;
  if (skip && given !== 'bypassPermissions') {
    throw new UsageError(`--dangerously-skip-permissions is --permission-mode bypassPermissions: it cannot go with --permission-mode ${given}`);
  }
  return given;
}

function checkCombinations(options: CliOptions): void {
  const resuming = options.resume !== undefined || options.continue === true;
  if (options.resume !== undefined && options.continue) throw new UsageError('--resume and --continue exclude each other');
  for (const [text, file, flag] of [[options.systemPrompt, options.systemPromptFile, 'system-prompt'], [options.appendSystemPrompt, options.appendSystemPromptFile, 'append-system-prompt']] as const) {
    if (text !== undefined && file !== undefined) throw new UsageError(`--${flag} and --${flag}-file exclude each other: use one (as Claude Code)`);
  }
  // --demo with --resume/--continue goes on with a session (a stepped demo killed while it waited) on the demo's model.
  if (options.demo && resuming && options.prompt !== undefined) throw new UsageError('--demo asks its own question: --demo --continue goes on with a session, without a prompt');
  if (options.mistake !== undefined) checkMistake(options, options.mistake);
  if (options.step) checkStep(options);
  const needsResume = options.forkSession ? '--fork-session' : options.waitForSession ? '--wait-for-session' : undefined;
  if (needsResume && !resuming) throw new UsageError(`${needsResume} goes with --resume or --continue`);
  if (options.allowWrite !== undefined && !options.sandbox) throw new UsageError('--allow-write goes with --sandbox');
  if (options.addDir !== undefined && options.sandbox) throw new UsageError('--add-dir is not supported with --sandbox: the sandbox lets commands write the working directory only');
  checkThinkingRoom(options);
  if (options.noSessionPersistence && resuming) throw new UsageError('--no-session-persistence starts an unsaved session: not with --resume or --continue');
  if (options.sessionId !== undefined && resuming && !options.forkSession) {
    throw new UsageError('--session-id with --resume or --continue needs --fork-session (the id is for the new session)');
  }
  if (options.port !== undefined && !options.view && !options.inspect) throw new UsageError('--port goes with --view, --inspect or view');
  if (options.view && options.inspect && options.port !== undefined) throw new UsageError('--port is ambiguous with both --view and --inspect');
  if (options.inputFormat === 'stream-json' && options.outputFormat !== 'stream-json') {
    throw new UsageError('--input-format stream-json goes with --output-format stream-json');
  }
  if (options.permissionPromptTool !== undefined && options.inputFormat !== 'stream-json') {
    throw new UsageError('--permission-prompt-tool stdio goes with --input-format stream-json (the answers come on stdin)');
  }
  for (const [on, flag] of [[options.includeLoopEvents, '--include-loop-events'], [options.includePartialMessages, '--include-partial-messages']] as const) {
    if (on && options.outputFormat !== 'stream-json') throw new UsageError(`${flag} goes with --output-format stream-json`);
  }
  if (options.fallbackModel !== undefined && options.fallbackModel === options.model) throw new UsageError('--fallback-model must differ from --model');
}

function checkStep(options: CliOptions): void {
  if (!(options.demo || options.print)) throw new UsageError('--step goes with --demo or -p: the page steps one run');
  if (options.mistake !== undefined) throw new UsageError('--step steps one run: --mistake runs two (step them with view --compare)');
  if (options.inputFormat === 'stream-json') throw new UsageError('--step waits for the page: not with --input-format stream-json');
}

function checkMistake(options: CliOptions, mistake: string): void {
  if (!options.demo && mistake !== 'list') throw new UsageError('--mistake goes with --demo: agentloop --demo --mistake NAME (or list)');
  if (mistake !== 'list' && !isMistakeName(mistake)) {
    throw new UsageError(`no mistake "${mistake}": see ${selfCommand()} --demo --mistake list`);
  }
  if (options.outputFormat !== 'text' || options.print) throw new UsageError('--mistake shows its report as text: drop -p and --output-format');
}

/** `view [ID]`, `view --compare A B`. */
/** `mcp list` or `mcp get NAME`. */
function mcpOptions({ flags, positionals }: ParsedLine): CliOptions {
  const [verb, name, more] = positionals;
  const format = { outputFormat: flags.listFormat ?? 'text', ...(flags.settingSources !== undefined ? { settingSources: flags.settingSources } : {}) };
  if (verb === 'list' && name === undefined) return { command: 'mcp', ...quiet, ...format, mcpAction: { verb } };
  if (verb === 'get' && name !== undefined && name !== '' && more === undefined) return { command: 'mcp', ...quiet, ...format, mcpAction: { verb, name } };
  if (verb === 'get') throw new UsageError(name === undefined || name === '' ? 'mcp get takes the name of a server' : `unexpected argument "${more}" after mcp get NAME`);
  if (verb === 'list') throw new UsageError(`unexpected argument "${name}" after mcp list`);
  throw new UsageError(verb === undefined ? 'mcp needs list or get NAME' : `unknown mcp command "${verb}" (list, get NAME)`);
}

function viewOptions({ flags, positionals }: ParsedLine): CliOptions {
  if (flags.compare && (positionals.length !== 2 || positionals.some((id) => id.trim() === ''))) {
    throw new UsageError(`view --compare takes two session ids: ${selfCommand()} view --compare A B`);
  }
  if (flags.admin !== undefined) throw new UsageError('--admin goes with --restate (a durable run)');
  const most = flags.compare ? 2 : 1;
  if (positionals.length > most) throw new UsageError(`unexpected argument "${positionals[most]}" after view`);
  const options: CliOptions = { command: 'view', ...quiet };
  if (flags.port !== undefined) options.port = flags.port;
  if (flags.compare) options.compare = [positionals[0] as string, positionals[1] as string];
  else if (positionals[0] !== undefined) options.viewId = positionals[0];
  return options;
}

/** `view --restate URL ID`: a durable run in the local viewer. */
function durableView({ flags, positionals }: ParsedLine): DurableOptions {
  if (flags.compare) throw new UsageError('view --restate does not take --compare');
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}" after view ID`);
  const options: DurableOptions = { command: 'view', ...restateOf(flags), id: restateId('view --restate', positionals[0]) };
  if (flags.port !== undefined) options.port = flags.port;
  return options;
}
