/**
 * The `bash` tool: runs a command with `bash -c` in the working directory and answers with its
 * output. See DESIGN.md section 5 and the modules under ./bash/ for each concern.
 */
import { realpath, stat } from 'node:fs/promises';
import { constants } from 'node:os';
import { CommandEnvironment } from './run/env.js';
import { isSafeAlongside, refusal } from './judge/checks.js';
import { loadShellParser } from './judge/shell/load.js';
import { checkNow, checkSoon, parserReader, plainReader } from './judge/shell/reader.js';
import { OutputCollector, type CollectedOutput } from './run/output.js';
import type { RunEnding } from './run/process.js';
import { redact } from './judge/secrets.js';
import { commandArgv, prepareArgv } from './run/argv.js';
import { requireBwrap } from './run/sandbox.js';
import { SpillSpace } from './run/spill.js';
import { prepareFifos } from './run/pipe.js';
import type { Tool, ToolContext, ToolOutput } from '../../core/tool.js';
import { defineTool } from '../define.js';
import { s } from '../schema.js';

export { SandboxUnavailableError } from './run/sandbox.js';

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
}

const DEFAULTS = {
  timeoutMs: 120_000,
  maxTimeoutMs: 600_000,
  maxOutputChars: 50_000,
  maxOutputFileBytes: 100 * 1024 * 1024,
  maxOutputDirBytes: 256 * 1024 * 1024,
};

export function createBashTool(options: BashToolOptions = {}): Tool {
  const settings = { ...DEFAULTS, ...definedOnly(options) };
  for (const key of ['timeoutMs', 'maxTimeoutMs', 'maxOutputChars', 'maxOutputFileBytes', 'maxOutputDirBytes'] as const) {
    const value = settings[key];
    if (!Number.isFinite(value) || value <= 0) throw new RangeError(`createBashTool: ${key} must be a positive number`);
  }
  const bwrap = options.sandbox === true ? requireBwrap((options.env ?? process.env).PATH) : null;
  const spill = new SpillSpace(options.outputDir, settings.maxOutputDirBytes);
  const environment = new CommandEnvironment(options.allowEnv);

  return defineTool({
    name: 'bash',
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
    prepare() {
      // What waits on other processes and files first: the FIFOs (not waiting for execa, whose import is the longest
      // of these, 25-40 ms in a fresh process), the runner, the bwrap probe.
      prepareFifos();
      // A command on its way to its spawn is the warm-up: another run before it would only delay it.
      const runnerReady = loadRunner().then((processes) => processes.prepareProcesses({ warmUp: commandsStarting === 0 }));
      prepareArgv({ sandbox: bwrap, contain: options.contain !== false, pathVar: (options.env ?? process.env).PATH });
      // Then one check through each reader, so that later checks run compiled code. The parser's first parse compiles
      // its WebAssembly (~10 ms): after the runner, and after the spawn of any command on its way (plain words need no parser).
      isSafeAlongside(plainReader, 'ls -A');
      const warmParser = () => void loadShellParser().then((parser) => isSafeAlongside(parserReader(parser), 'ls -A'), () => undefined);
      runnerReady.then(() => setImmediate(() => whenNoCommandStarting(warmParser)), warmParser);
    },
    async run(parsed, context) {
      if (parsed.command.trim() === '') return { isError: true, content: 'Invalid input for bash: "command" is empty.' };
      commandsStarting++;
      let starting = true;
      const spawned = () => {
        if (!starting) return;
        starting = false;
        commandStarted();
      };
      try {
        return await runCommand(parsed, context, spawned);
      } finally {
        spawned();
      }
    },
  });

  async function runCommand(parsed: { command: string; timeout?: number | undefined }, context: ToolContext, spawned: () => void): Promise<ToolOutput> {
    let refused: string | null;
    try {
      refused = await checkSoon((read) => refusal(read, parsed.command));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return { isError: true, content: `The command was not run: the shell parser (tree-sitter-bash) did not load: ${why}` };
    }
    if (refused !== null) return { isError: true, content: refused };
    // Without the sandbox the working directory is only checked when the spawn fails: a stat
    // before each command would cost a round trip to the thread pool.
    if (bwrap !== null && !(await isDirectory(context.cwd))) return noDirectory(context.cwd);
    const timeoutMs = parsed.timeout === undefined ? settings.timeoutMs : Math.min(parsed.timeout, settings.maxTimeoutMs);
    const cwd = bwrap === null ? context.cwd : await realpath(context.cwd);
    const base = options.env ?? process.env;
    const output = new OutputCollector({
      maxChars: settings.maxOutputChars,
      maxFileBytes: settings.maxOutputFileBytes,
      spill,
    });
    const argv = await commandArgv({
      sandbox: bwrap,
      contain: options.contain !== false,
      pathVar: (options.env ?? process.env).PATH,
      cwd,
      command: parsed.command,
      timeoutMs,
      view: { env: base, ...(options.hide ? { hide: options.hide } : {}), reveal: revealed(spill) },
    });
    const { runInProcessGroup } = await loadRunner();
    // Read at each call: the caller may load more variables (a .env file) after creating the tool.
    const { env, secrets } = environment.read(base, options.secrets);
    const ending = await runInProcessGroup({
      argv,
      cwd,
      // The call's own variables (its TRACEPARENT when the run is traced) come last.
      env: context.env ? { ...env, ...context.env } : env,
      timeoutMs,
      signal: context.signal,
      onData: (chunk) => output.write(chunk),
      onSpawned: spawned,
    });
    if (ending.kind === 'spawn-error' && !(await isDirectory(cwd))) return noDirectory(context.cwd);
    const result = formatResult(output.finish(), ending, timeoutMs);
    return { ...result, content: redact(result.content, secrets) };
  }
}

export const bashTool: Tool = createBashTool();

/**
 * The process runner (and execa behind it) loads at the first command, or earlier, in `prepare`,
 * while the first model call is under way: a run that never uses the tool never loads it, and
 * the first command of a run does not wait for it.
 */
let runner: Promise<typeof import('./run/process.js')> | undefined;
function loadRunner(): Promise<typeof import('./run/process.js')> {
  runner ??= import('./run/process.js');
  return runner;
}

/**
 * Commands called and not yet spawned. The warm-ups of `prepare` (a `true` run, a parse) give way to them: in a fresh
 * process they would sit on the path of the first command.
 */
let commandsStarting = 0;
let afterStart: Array<() => void> = [];
function whenNoCommandStarting(warm: () => void): void {
  if (commandsStarting === 0) warm();
  else afterStart.push(warm);
}
function commandStarted(): void {
  commandsStarting--;
  if (commandsStarting > 0 || afterStart.length === 0) return;
  const waiting = afterStart;
  afterStart = [];
  setImmediate(() => waiting.forEach((warm) => warm()));
}

function formatResult(out: CollectedOutput, ending: RunEnding, timeoutMs: number): ToolOutput {
  const notes: string[] = [];
  if (out.truncated) {
    const where =
      out.file === undefined
        ? `the full output could not be saved (${out.fileError ?? 'unknown error'})`
        : out.file.complete
          ? `the full output is in ${out.file.path}`
          : `the first ${out.file.bytes} bytes are in ${out.file.path}`;
    notes.push(`[output truncated: ${out.omittedBytes} of ${out.totalBytes} bytes omitted from the middle; ${where}]`);
  }
  if (out.invalidUtf8) notes.push('[output is not valid UTF-8: invalid bytes were replaced with U+FFFD]');
  let isError = true;
  switch (ending.kind) {
    case 'exit':
      if (ending.signal !== null) notes.push(`[killed by signal ${ending.signal}]`);
      else if (ending.code !== 0) notes.push(`[exit code ${exitCodeText(ending.code)}]`);
      else isError = false;
      break;
    case 'timeout':
      notes.push(`[timed out after ${timeoutMs} ms: the command and its child processes were killed]`);
      break;
    case 'aborted':
      notes.push(
        ending.started
          ? '[interrupted: the command and its child processes were killed]'
          : '[interrupted: the command was not started]',
      );
      break;
    case 'spawn-error':
      notes.push(`[could not start the command: ${ending.message}]`);
      break;
  }
  const body = out.text.replace(/\n+$/, '');
  const shown = body === '' ? '(no output)' : body;
  return { isError, content: notes.length === 0 ? shown : `${shown}\n\n${notes.join('\n')}` };
}

/**
 * A contained command's status comes through bwrap, which reports a death by signal N as 128 + N,
 * as bash does for its children: the signal is named beside the code.
 */
function exitCodeText(code: number | null): string {
  if (code === null || code <= 128) return String(code);
  const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
  return name === undefined ? String(code) : `${code} (${name})`;
}

/** Under the sandbox the saved output of long commands stays readable, wherever it is. */
function revealed(spill: SpillSpace): string[] {
  const folder = spill.folderOrUndefined;
  return folder === undefined ? [] : [folder];
}

function noDirectory(cwd: string): ToolOutput {
  return { isError: true, content: `The working directory ${cwd} does not exist or is not a directory.` };
}

function describe(cwd: string | undefined, settings: typeof DEFAULTS, sandboxed: boolean): string {
  const where = cwd === undefined ? 'the session working directory' : cwd;
  const lines = [
    `Run a bash command (bash -c) in ${where} and get its combined stdout and stderr.`,
    `Each call starts a fresh shell in that directory: cd and variables do not carry over to the next call.`,
    `Commands cannot be interactive: stdin is empty, there is no terminal, editors fail (use git commit -m) and pagers are cat.`,
    `Background processes are killed when the command ends. Timeout: ${settings.timeoutMs} ms by default; pass "timeout" (ms, at most ${settings.maxTimeoutMs}) for longer commands.`,
    `Output is cut to ${settings.maxOutputChars} characters (head and tail kept; the full output is saved to a file whose path is given).`,
  ];
  if (sandboxed) {
    lines.push(
      'Sandboxed: only the working directory is writable; /tmp, /var/tmp and /run are private and empty; there is no network; ' +
        "the user's credentials (~/.ssh, ~/.aws, ~/.config, ~/.netrc, ...), the agent's own files and .env files are hidden.",
    );
  }
  return lines.join('\n');
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
