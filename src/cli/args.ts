/**
 * The command line, as Claude Code's: `agentloop -p [flags] "PROMPT"` runs once, `agentloop "PROMPT"` opens the REPL
 * with that first question, `agentloop sessions` and `agentloop view [ID]` are the subcommands.
 */
import { parseArgs } from 'node:util';
import { resolveModel } from '../core/models.js';
import { isMistakeName } from '../mistakes/names.js';
import { PERMISSION_MODES, type PermissionMode } from '../permissions/modes.js';
import { UsageError, allowWriteOf, portOf, positiveInt, positiveNumber, promptToolOf, splitRules, usageErrorOf, uuidOf } from './argValues.js';

export { UsageError } from './argValues.js';

export type OutputFormat = 'text' | 'json' | 'stream-json';

export interface CliOptions {
  /** `sessions` lists the saved sessions; `view` serves the step-through viewer. */
  command: 'run' | 'help' | 'version' | 'sessions' | 'view';
  /** `-p`: run once and print the result (also implied by `--output-format json|stream-json`). */
  print: boolean;
  /** The positional prompt: with `print`, the question of the run; without, the REPL's first question. */
  prompt?: string;
  demo: boolean;
  outputFormat: OutputFormat;
  /** `--input-format stream-json`: user messages as JSON lines on stdin. */
  inputFormat?: 'text' | 'stream-json';
  /** The full model id (`sonnet`, `opus`, `haiku` resolved). */
  model?: string;
  /** `--fallback-model`: used when the model is overloaded (full id). */
  fallbackModel?: string;
  maxTurns?: number;
  maxTokens?: number;
  maxRetries?: number;
  /** `--max-budget-usd`: stop once the run has cost this much. */
  maxBudgetUsd?: number;
  /** `--system-prompt`: replaces the system prompt. */
  systemPrompt?: string;
  /** `--append-system-prompt`: added to the end of the system prompt. */
  appendSystemPrompt?: string;
  /** `--verbose`: progress on stderr in text mode; accepted (as Claude Code requires it) with stream-json. */
  verbose?: boolean;
  /** `--include-partial-messages`: the model's raw stream events as `stream_event` lines (stream-json). */
  includePartialMessages?: boolean;
  /** `--mcp-config` values: files or JSON texts of MCP servers, in Claude Code's format (tools/mcp/config.ts). */
  mcpConfig?: string[];
  /** `--strict-mcp-config`: only the servers of `--mcp-config` (the only ones agentloop reads anyway). */
  strictMcpConfig?: boolean;
  /** `--include-loop-events`: agentloop's own loop events as lines of stream-json (docs/agent-sdk.md). */
  includeLoopEvents?: boolean;
  /** `--permission-prompt-tool stdio`: ask the host (an Agent SDK program) with can_use_tool control requests. */
  permissionPromptTool?: 'stdio';
  /** `--allowedTools` rules (Claude Code syntax: `Bash`, `Bash(git log:*)`), one rule per entry. */
  allowedTools?: string[];
  /** `--disallowedTools` rules; deny beats allow. */
  disallowedTools?: string[];
  /** `--permission-mode` (`manual` is `default`), `--dangerously-skip-permissions` (`bypassPermissions`). */
  permissionMode?: PermissionMode;
  cwd?: string;
  /** Run bash commands under bubblewrap. */
  sandbox?: boolean;
  /** Credential variables the commands may see. */
  allowEnv?: string[];
  /** Under the sandbox: files that run later the commands may write after all (tools/bash/run/protect.ts). */
  allowWrite?: string[];
  /** `-r/--resume ID`: go on with that session (a unique prefix of the id is enough). */
  resume?: string;
  /** `--continue`: go on with the newest session of the working directory. */
  continue?: boolean;
  /** `--session-id UUID`: the id of the new session (lower case). */
  sessionId?: string;
  /** `--fork-session`: with --resume/--continue, go on in a new session instead of the old one. */
  forkSession?: boolean;
  /** `--wait-for-session`: with --resume/--continue, wait while another run writes the session. */
  waitForSession?: boolean;
  /** `--inspect`: connect the machine to the Stately inspector (the page needs the internet). */
  inspect?: boolean;
  /** `--view`: show the run live in the local step-through viewer. */
  view?: boolean;
  /** `--step`: the run waits before each model request and each tool until the page lets it go on (implies --view). */
  step?: boolean;
  /** Port of the viewer or the inspector bridge (default: any free port). */
  port?: number;
  /** `view [ID]`: the session to open. */
  viewId?: string;
  /** `--demo --mistake NAME`: the demo with one of the beginner's mistakes in the loop (`list`: name them). */
  mistake?: string;
  /** `view --compare A B`: two sessions side by side (a mistaken run and a correct one). */
  compare?: [string, string];
}

/** Every flag of a run and of the subcommands, as node:util's parseArgs takes them (each is in the --help text). */
export const FLAGS = {
  print: { type: 'boolean', short: 'p' },
  'output-format': { type: 'string' },
  'input-format': { type: 'string' },
  model: { type: 'string' },
  'fallback-model': { type: 'string' },
  'max-turns': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-retries': { type: 'string' },
  'max-budget-usd': { type: 'string' },
  'system-prompt': { type: 'string' },
  'append-system-prompt': { type: 'string' },
  verbose: { type: 'boolean' },
  'include-partial-messages': { type: 'boolean' },
  'include-loop-events': { type: 'boolean' },
  'permission-prompt-tool': { type: 'string' },
  allowedTools: { type: 'string', multiple: true },
  'allowed-tools': { type: 'string', multiple: true },
  disallowedTools: { type: 'string', multiple: true },
  'disallowed-tools': { type: 'string', multiple: true },
  'permission-mode': { type: 'string' },
  'dangerously-skip-permissions': { type: 'boolean' },
  cwd: { type: 'string' },
  sandbox: { type: 'boolean' },
  'allow-env': { type: 'string', multiple: true },
  'mcp-config': { type: 'string', multiple: true },
  'strict-mcp-config': { type: 'boolean' },
  'allow-write': { type: 'string', multiple: true },
  demo: { type: 'boolean' },
  mistake: { type: 'string' },
  compare: { type: 'boolean' },
  resume: { type: 'string', short: 'r' },
  continue: { type: 'boolean', short: 'c' },
  'session-id': { type: 'string' },
  'fork-session': { type: 'boolean' },
  'wait-for-session': { type: 'boolean' },
  inspect: { type: 'boolean' },
  view: { type: 'boolean' },
  step: { type: 'boolean' },
  port: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof FLAGS; allowPositionals: true; strict: true }>>['values'];

export function parseCliArgs(argv: string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: FLAGS });
  } catch (error) {
    throw usageErrorOf(error, Object.keys(FLAGS));
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help', print: false, demo: false, outputFormat: 'text' };
  if (values.version) return { command: 'version', print: false, demo: false, outputFormat: 'text' };
  const [first, ...rest] = positionals;
  if (first === 'sessions' || first === 'view') return parseSubcommand(first, rest, values);
  if (positionals.length > 1) {
    throw new UsageError(`unexpected argument "${positionals[1]}": the prompt is one argument (put it in quotes)`);
  }
  if (first !== undefined && first.trim() === '') throw new UsageError('the prompt is empty');

  const format = values['output-format'] ?? 'text';
  if (format !== 'text' && format !== 'json' && format !== 'stream-json') {
    throw new UsageError(`--output-format must be text, json or stream-json, not "${format}"`);
  }
  const inputFormat = values['input-format'];
  if (inputFormat !== undefined && inputFormat !== 'text' && inputFormat !== 'stream-json') {
    throw new UsageError(`--input-format must be text or stream-json, not "${inputFormat}"`);
  }
  const options: CliOptions = {
    command: 'run',
    // A machine-readable result or input means a run without the REPL.
    print: values.print === true || format !== 'text' || inputFormat === 'stream-json',
    demo: values.demo ?? false,
    outputFormat: format,
  };
  if (first !== undefined) options.prompt = first;
  if (inputFormat !== undefined) options.inputFormat = inputFormat;
  setRunValues(options, values);
  checkCombinations(options);
  return options;
}

/** `--permission-mode` and `--dangerously-skip-permissions`, as one mode. */
function modeOfFlags(given: string | undefined, skip: boolean): PermissionMode | undefined {
  if (given === undefined) return skip ? 'bypassPermissions' : undefined;
  const mode = given === 'manual' ? 'default' : given;
  if (mode === 'auto') {
    throw new UsageError(`--permission-mode auto needs Claude Code's safety classifier, which agentloop does not have: use ${PERMISSION_MODES.join(', ')}`);
  }
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`--permission-mode must be one of ${PERMISSION_MODES.join(', ')} (or manual), not "${given}"`);
  }
  if (skip && mode !== 'bypassPermissions') {
    throw new UsageError(`--dangerously-skip-permissions is --permission-mode bypassPermissions: it cannot go with --permission-mode ${given}`);
  }
  return mode as PermissionMode;
}

/** The flags of a run that take a value or switch something on, checked one by one. */
function setRunValues(options: CliOptions, values: Values): void {
  if (values.model !== undefined) options.model = nonEmpty('--model', resolveModel(values.model));
  if (values['fallback-model'] !== undefined) options.fallbackModel = nonEmpty('--fallback-model', resolveModel(values['fallback-model']));
  if (values['system-prompt'] !== undefined) options.systemPrompt = values['system-prompt'];
  if (values['append-system-prompt'] !== undefined) options.appendSystemPrompt = values['append-system-prompt'];
  if (values.verbose) options.verbose = true;
  if (values['include-partial-messages']) options.includePartialMessages = true;
  if (values['include-loop-events']) options.includeLoopEvents = true;
  if (values['permission-prompt-tool'] !== undefined) options.permissionPromptTool = promptToolOf(values['permission-prompt-tool']);
  const allowed = splitRules('--allowedTools', join(values.allowedTools, values['allowed-tools']));
  const disallowed = splitRules('--disallowedTools', join(values.disallowedTools, values['disallowed-tools']));
  if (allowed) options.allowedTools = allowed;
  if (disallowed) options.disallowedTools = disallowed;
  const mode = modeOfFlags(values['permission-mode'], values['dangerously-skip-permissions'] === true);
  if (mode !== undefined) options.permissionMode = mode;
  if (values.cwd !== undefined) options.cwd = values.cwd;
  if (values.sandbox) options.sandbox = true;
  for (const name of values['allow-env'] ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`--allow-env takes a variable name, not "${name}"`);
  }
  if (values['allow-env']) options.allowEnv = values['allow-env'];
  if (values['mcp-config']) options.mcpConfig = values['mcp-config'].map((value) => nonEmpty('--mcp-config', value, ' (a file or JSON text)'));
  if (values['strict-mcp-config']) options.strictMcpConfig = true;
  const allowWrite = allowWriteOf(values['allow-write'], values.sandbox === true);
  if (allowWrite) options.allowWrite = allowWrite;
  const numbers = {
    maxTurns: positiveInt('--max-turns', values['max-turns']),
    maxTokens: positiveInt('--max-tokens', values['max-tokens']),
    maxRetries: positiveInt('--max-retries', values['max-retries'], 0),
    maxBudgetUsd: positiveNumber('--max-budget-usd', values['max-budget-usd']),
    port: portOf(values.port),
  };
  for (const [key, value] of Object.entries(numbers)) if (value !== undefined) options[key as keyof typeof numbers] = value;
  if (values.resume !== undefined) options.resume = nonEmpty('--resume', values.resume, ' (a session id: see agentloop sessions)');
  if (values.continue) options.continue = true;
  const sessionId = uuidOf('--session-id', values['session-id']);
  if (sessionId !== undefined) options.sessionId = sessionId;
  Object.assign(options, values['fork-session'] ? { forkSession: true } : {}, values['wait-for-session'] ? { waitForSession: true } : {});
  if (values.inspect) options.inspect = true;
  if (values.view) options.view = true;
  // Stepping is done in the page: --step brings the viewer up.
  if (values.step) Object.assign(options, { step: true, view: true });
  if (values.mistake !== undefined) options.mistake = values.mistake.trim();
  if (values.compare) throw new UsageError('--compare goes with view: agentloop view --compare A B');
}

function checkCombinations(options: CliOptions): void {
  const resuming = options.resume !== undefined || options.continue === true;
  if (options.resume !== undefined && options.continue) throw new UsageError('--resume and --continue exclude each other');
  if (options.demo && resuming) throw new UsageError('--demo always starts a new session: it cannot be combined with --resume or --continue');
  if (options.mistake !== undefined) {
    if (!options.demo && options.mistake !== 'list') throw new UsageError('--mistake goes with --demo: agentloop --demo --mistake NAME (or list)');
    if (options.mistake !== 'list' && !isMistakeName(options.mistake)) {
      throw new UsageError(`no mistake "${options.mistake}": see agentloop --demo --mistake list`);
    }
    if (options.outputFormat !== 'text' || options.print) throw new UsageError('--mistake shows its report as text: drop -p and --output-format');
  }
  if (options.step && !(options.demo || options.print)) throw new UsageError('--step goes with --demo or -p: the page steps one run');
  if (options.step && options.mistake !== undefined) throw new UsageError('--step steps one run: --mistake runs two (step them with view --compare)');
  if (options.step && options.inputFormat === 'stream-json') throw new UsageError('--step waits for the page: not with --input-format stream-json');
  const needsResume = options.forkSession ? '--fork-session' : options.waitForSession ? '--wait-for-session' : undefined;
  if (needsResume && !resuming) throw new UsageError(`${needsResume} goes with --resume or --continue`);
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

function join(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  return a || b ? [...(a ?? []), ...(b ?? [])] : undefined;
}

function nonEmpty(flag: string, value: string, hint = ''): string {
  if (value.trim() === '') throw new UsageError(`${flag} needs a value${hint}`);
  return value.trim();
}

/** `sessions` and `view [ID]`: they take only `--output-format` / `--port`. */
function parseSubcommand(command: 'sessions' | 'view', rest: string[], values: Values): CliOptions {
  const allowed = command === 'sessions' ? ['output-format'] : ['port', 'compare'];
  const stray = Object.keys(values).find((key) => !allowed.includes(key));
  if (stray) throw new UsageError(`${command} does not take --${stray}`);
  if (values.compare) {
    const [a, b, extra] = rest;
    if (a === undefined || b === undefined || extra !== undefined) throw new UsageError('view --compare takes two session ids: agentloop view --compare A B');
  }
  const maxPositionals = command === 'view' ? (values.compare ? 2 : 1) : 0;
  if (rest.length > maxPositionals) throw new UsageError(`unexpected argument "${rest[maxPositionals]}" after ${command}`);
  const format = values['output-format'] ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError('sessions --output-format must be text or json');
  const options: CliOptions = { command, print: false, demo: false, outputFormat: format };
  const port = portOf(values.port);
  if (port !== undefined) options.port = port;
  if (values.compare) options.compare = [rest[0] as string, rest[1] as string];
  else if (rest[0] !== undefined) options.viewId = rest[0];
  return options;
}
