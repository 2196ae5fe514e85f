/**
 * The `bash` tool: runs a command with `bash -c` in the working directory and answers with its
 * output. Running a command is in ./run/ (the process, containment, the sandbox, output), reading one in ./judge/
 * (parse, guard, read-only, secrets); docs/bash-tool.md says what holds for every command.
 */
import { stat } from 'node:fs/promises';
import { isSafeAlongside, refusal } from './judge/checks.js';
import { called, prepare } from './ahead.js';
import { redact, type SecretValue } from './judge/secrets.js';
import { checkNow, checkSoon } from './judge/shell/reader.js';
import { chooseRunner } from './run/choose.js';
import { CommandEnvironment } from './run/env.js';
import { OutputCollector } from './run/output.js';
import { formatResult, noDirectory } from './run/result.js';
import type { CommandRunner } from './run/runner.js';
import { allowableNames, unknownNames } from './run/protect.js';
import { requireBwrap, type SandboxSettings } from './run/sandbox.js';
import { SpillSpace } from './run/spill.js';
import type { Tool, ToolContext, ToolOutput } from '../../core/tool.js';
import { defineTool } from '../define.js';
import { describe } from './describe.js';
import { BASH_PUBLIC_NAME, BASH_TOOL_NAME } from './names.js';
import { bashDisplay, bashPermission, isReadOnlyCommand } from './permission.js';
import { s } from '../schema.js';

export { SandboxUnavailableError } from './run/sandbox.js';
export type { CommandRun, CommandRunner, RunEnding } from './run/runner.js';

export interface BashToolOptions {
  /** Only used to tell the model where it works; at run time `ToolContext.cwd` is used. */
  cwd?: string;
  /** Default timeout of a command, in ms (default 120_000). */
  timeoutMs?: number;
  /** Cap on the model's per-call `timeout`, in ms (default 600_000). */
  maxTimeoutMs?: number;
  /** At most this many characters of output are returned (default 50_000). */
  maxOutputChars?: number;
  /** Cap on the file holding the full output of a long command (default 100 MiB). */
  maxOutputFileBytes?: number;
  /**
   * Where the full output of long commands is kept (the CLI gives the session's folder); default:
   * a folder in the temporary directory, removed when the process exits (tools/bash/run/spill.ts).
   */
  outputDir?: string;
  /** Cap on all the full outputs kept in `outputDir` together (default 256 MiB). */
  maxOutputDirBytes?: number;
  /**
   * Run every command under bubblewrap: read-only file system except the working directory,
   * private /tmp, no network. `createBashTool` throws a SandboxUnavailableError when `bwrap` is
   * not on the PATH of `env`.
   */
  sandbox?: boolean;
  /**
   * Under the sandbox, more paths to hide besides its own list (tools/bash/run/hidden.ts), e.g. the
   * session store the agent writes to.
   */
  hide?: string[];
  /**
   * Under the sandbox, files that run later which commands may write after all, by name (`.bashrc`, `.git/hooks`,
   * `.git` for all of `.git/...`, `.vscode`): by default they are read-only, even in the working directory, and one
   * that does not exist cannot be made (tools/bash/run/protect.ts lists them). A name not on that list is refused.
   */
  allowWrite?: string[];
  /** Names of credential variables (`*_API_KEY`, `*_TOKEN`, ...) the commands may see. */
  allowEnv?: string[];
  /** The environment commands start from (default `process.env`), minus credentials. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Values never shown in a result, besides the credentials of `env` (which are cut out too):
   * e.g. the API key when it was read from a .env file. Each is shown as `[redacted NAME]`.
   */
  secrets?: { name: string; value: string }[];
  /**
   * Run every command in a PID namespace of its own (bubblewrap), so that nothing it starts
   * outlives it or the agent, and it cannot see the agent's process (default true). Without a
   * working `bwrap` commands run uncontained and a warning (`AGENTLOOP_UNCONTAINED`) says so.
   */
  contain?: boolean;
  /**
   * How commands run, instead of agentloop's own ways (bash in a PID namespace, `--sandbox`'s bubblewrap, bash alone):
   * e.g. over SSH, or in a container (docs/library.md has an example). Its `run` gets each command with its working
   * directory, environment, timeout and abort signal, and hands the output on as it comes; `contain` then does not
   * apply, and `sandbox: true` with a runner is refused.
   */
  runner?: CommandRunner;
}

const DEFAULTS = {
  timeoutMs: 120_000,
  maxTimeoutMs: 600_000,
  maxOutputChars: 50_000,
  maxOutputFileBytes: 100 * 1024 * 1024,
  maxOutputDirBytes: 256 * 1024 * 1024,
};

export function createBashTool(options: BashToolOptions = {}): Tool {
  const settings = checkedSettings(options);
  const env = () => options.env ?? process.env;
  if (options.runner !== undefined && options.sandbox === true) throw new RangeError('createBashTool: sandbox and runner: a runner of your own runs the commands, so the sandbox cannot');
  const bwrap = options.sandbox === true ? requireBwrap(env().PATH) : null;
  const spill = new SpillSpace(options.outputDir, settings.maxOutputDirBytes);
  let runner: Promise<CommandRunner> | undefined;
  const tool: BashState = {
    settings,
    spill,
    env,
    environment: new CommandEnvironment(options.allowEnv),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    // Chosen once, at `prepare` or at the first command (a bwrap probe, at most one per process).
    runner: () =>
      (runner ??= options.runner ? Promise.resolve(options.runner) : chooseRunner({
        contain: options.contain !== false,
        pathVar: env().PATH,
        ...(bwrap === null ? {} : { sandbox: sandboxSettings(bwrap, options, env, spill) }),
      })),
  };
  return defineTool({
    name: BASH_TOOL_NAME,
    publicName: BASH_PUBLIC_NAME,
    description: describe(options.cwd, settings, bwrap !== null),
    input: s.object({
      command: s.string({ description: 'The bash command to run, e.g. "ls -la src" or "npm test 2>&1 | tail -50".' }),
      timeout: s.optional(
        s.number({
          exclusiveMinimum: 0,
          description: `Optional timeout in milliseconds (default ${settings.timeoutMs}, at most ${settings.maxTimeoutMs}).`,
        }),
      ),
    }),
    // Until the shell parser has loaded (in `prepare`, or at the first command) only a line of plain words
    // (`sleep 1; ls -la`) can be judged; it is judged by the same rules (shell/reader.ts).
    isConcurrencySafe: ({ command }) => checkNow((read) => isSafeAlongside(read, command))?.value ?? false,
    isReadOnly: isReadOnlyCommand,
    permission: bashPermission,
    display: bashDisplay,
    prepare: (run) => prepare({ runner: tool.runner, commandEnv: () => tool.environment.read(tool.env(), tool.secrets).env }, run),
    async run(parsed, context) {
      if (parsed.command.trim() === '') return { isError: true, content: 'Invalid input for bash: "command" is empty.' };
      return called(() => runCommand(tool, parsed, context));
    },
  });
}

/** What each command of one tool needs: its settings, the saved outputs, its environment and its way of running. */
interface BashState {
  settings: typeof DEFAULTS;
  spill: SpillSpace;
  /** The environment commands start from. */
  env(): Readonly<Record<string, string | undefined>>;
  environment: CommandEnvironment;
  secrets?: SecretValue[];
  runner(): Promise<CommandRunner>;
}

function sandboxSettings(bwrap: string, options: BashToolOptions, env: BashState['env'], spill: SpillSpace): Omit<SandboxSettings, 'backstop'> {
  return {
    bwrap,
    env,
    reveal: () => revealed(spill),
    ...(options.hide ? { hide: options.hide } : {}),
    ...(options.allowWrite ? { allowWrite: options.allowWrite } : {}),
  };
}

function checkedSettings(options: BashToolOptions): typeof DEFAULTS {
  const unknown = unknownNames(options.allowWrite ?? []);
  if (unknown.length > 0) {
    throw new RangeError(`createBashTool: allowWrite: ${unknown.join(', ')} is not a protected name (one of ${allowableNames().join(', ')})`);
  }
  const settings = { ...DEFAULTS, ...definedOnly(options) };
  for (const key of ['timeoutMs', 'maxTimeoutMs', 'maxOutputChars', 'maxOutputFileBytes', 'maxOutputDirBytes'] as const) {
    const value = settings[key];
    if (!Number.isFinite(value) || value <= 0) throw new RangeError(`createBashTool: ${key} must be a positive number`);
  }
  return settings;
}

async function runCommand(tool: BashState, parsed: { command: string; timeout?: number | undefined }, context: ToolContext): Promise<ToolOutput> {
  let refused: string | null;
  try {
    refused = await checkSoon((read) => refusal(read, parsed.command));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { isError: true, content: `The command was not run: the shell parser (tree-sitter-bash) did not load: ${why}` };
  }
  if (refused !== null) return { isError: true, content: refused };
  const { settings } = tool;
  const timeoutMs = parsed.timeout === undefined ? settings.timeoutMs : Math.min(parsed.timeout, settings.maxTimeoutMs);
  const output = new OutputCollector({ maxChars: settings.maxOutputChars, maxFileBytes: settings.maxOutputFileBytes, spill: tool.spill });
  const runner = await tool.runner();
  // Read at each call: the caller may load more variables (a .env file) after creating the tool.
  const { env, secrets } = tool.environment.read(tool.env(), tool.secrets);
  const ending = await runner.run({
    command: parsed.command,
    cwd: context.cwd,
    // The call's own variables (its TRACEPARENT when the run is traced) come last.
    env: context.env ? { ...env, ...context.env } : env,
    timeoutMs,
    signal: context.signal,
    onData: (chunk) => output.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)),
  });
  // The working directory is checked only when the spawn fails: a stat before each command would cost a round trip to
  // the thread pool.
  if (ending.kind === 'spawn-error' && !(await isDirectory(context.cwd))) return noDirectory(context.cwd);
  const collected = output.finish();
  const result = formatResult(collected, ending, timeoutMs);
  const content = redact(result.content, secrets);
  if (result.isError) return { ...result, content };
  // Claude Code's structured result (stream-json's tool_use_result, a PostToolUse hook's tool_response): the output
  // in stdout (stderr is in it: one stream), '' for none.
  const stdout = collected.text.replace(/\n+$/, '') === '' ? '' : content;
  return { ...result, content, data: { stdout, stderr: '', interrupted: false, isImage: false, noOutputExpected: false } };
}

/** Under the sandbox the saved output of long commands stays readable, wherever it is. */
function revealed(spill: SpillSpace): string[] {
  const folder = spill.folderOrUndefined;
  return folder === undefined ? [] : [folder];
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
