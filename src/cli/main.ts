#!/usr/bin/env node
/**
 * The entry point. It loads only what the command line needs: `--version` is answered by this module alone, `--help`
 * loads the help (./commandLine/help.js, with the option table), a bad command line only the parser (./commandLine/args.js: one line and a
 * pointer to the command's --help), and ./commands/run.js (with the loop, the SDK and XState behind it) or ./commands/durable.js
 * load only for a command that does something.
 */
import { readFileSync, writeSync } from 'node:fs';
import type { CliOptions, CommandLine } from './commandLine/args.js';
import { COMMAND_NAMES } from './commandLine/optionTable.js';
import { shown } from './printers/terminal.js';
import { selfCommand } from './commandLine/self.js';

/** The package's version, from its package.json (two directories up, from dist/cli/ as from src/cli/). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * Writes `text` to stdout (1) or stderr (2) at once, without setting up a stream for a process that prints one thing
 * and exits. A reader that is gone (EPIPE) is no error; a pipe that is full (EAGAIN) gets the rest through the stream.
 */
function print(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(fd, bytes, written);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return;
    (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(written));
  }
}

/**
 * `--version` or `-v` alone, `--help` or `-h` alone, `COMMAND --help`: the answer needs no parser (the parser gives
 * the same one).
 */
function alone(argv: string[]): CliOptions | undefined {
  const quiet = { print: false, demo: false, outputFormat: 'text' } as const;
  const [first, second] = argv;
  if (argv.length === 1 && (first === '--version' || first === '-v')) return { command: 'version', ...quiet };
  if (argv.length === 1 && (first === '--help' || first === '-h')) return { command: 'help', ...quiet };
  const command = COMMAND_NAMES.find((name) => name !== 'run' && name === first);
  if (argv.length === 2 && command && (second === '--help' || second === '-h')) return { command: 'help', ...quiet, helpFor: command };
  return undefined;
}

/**
 * Node 22.1+ keeps the bytecode of the modules it compiles in a cache (NODE_COMPILE_CACHE, or node-compile-cache in
 * the temp directory), so the next run starts faster. Node 20 has no such cache; a cache that cannot be written is
 * skipped by Node itself.
 */
async function enableCompileCache(): Promise<void> {
  try {
    const { default: nodeModule } = await import('node:module');
    (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  } catch {
    // The cache is only a speed-up.
  }
}

/** A bad command line: one line and the pointer to the command's --help, exit 2; any other error is thrown on. */
function usageFailure(error: unknown, UsageError: new (...args: never[]) => Error): number {
  if (!(error instanceof UsageError)) throw error;
  const command = (error as Error & { command?: string }).command;
  print(2, `agentloop: ${error.message}\nsee ${selfCommand()} ${command ? `${command} ` : ''}--help\n`);
  return 2;
}

/** The options of the command line, or the exit code of a bad one. */
async function commandLine(argv: string[]): Promise<CommandLine | number> {
  const quick = alone(argv);
  if (quick) return quick;
  const { parseCommandLine, UsageError, contextWindowOf } = await import('./commandLine/args.js');
  try {
    const options = parseCommandLine(argv);
    if (options.command === 'run') contextWindowOf(options, process.env); // a bad AGENTLOOP_CONTEXT_WINDOW: one line, exit 2
    return options;
  } catch (error) {
    return usageFailure(error, UsageError);
  }
}

export async function main(argv: string[]): Promise<number> {
  const options = await commandLine(argv);
  if (typeof options === 'number') return options;
  if (options.command === 'version') {
    print(1, `${version()}\n`);
    return 0;
  }
  if (options.command === 'help') {
    const { helpText } = await import('./commandLine/help.js');
    print(1, `${helpText(options.helpFor)}\n`);
    return 0;
  }
  await enableCompileCache();
  // args.js is loaded already (commandLine parsed with it): the same module, no cost.
  if (!(await import('./commandLine/args.js')).isLocal(options)) {
    const { runDurable } = await import('./commands/durable.js');
    return runDurable(options, { env: process.env, version: version(), cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
  }
  // Claude Code's flags agentloop has no feature behind: taken, and said (./commandLine/claudeFlags.ts).
  const taken = (options as CliOptions).takenFlags ?? [];
  if (taken.length) {
    const { TAKEN } = await import('./commandLine/claudeFlags.js');
    print(2, taken.map((flag) => `agentloop: --${flag}: ${TAKEN[flag]}\n`).join(''));
  }
  const cli = options as CliOptions;
  // Claude Code's settings files' env and model, before anything reads the environment (./setup/settingsEnv.ts).
  const { withClaudeSettings } = await import('./setup/settingsEnv.js');
  return local(cli.command === 'run' ? withClaudeSettings(cli, cli.cwd ?? process.cwd(), process.env, (line) => print(2, `${line}\n`)) : cli);
}

/**
 * A local command, from its own file once what every one starts with is done (./setup/pipeline.ts `localStart`). That
 * comes through the run command's module, which the run needs anyway and the others loaded before (a module of its own
 * here would be an entry of the bundle, its code shared with the run split into seven more files for every run).
 */
async function local(options: CliOptions): Promise<number> {
  const { localStart, run } = await import('./commands/run.js');
  const cwd = localStart(options);
  if (typeof cwd === 'number') return cwd;
  const { env, stdout, stderr } = process;
  if (options.command === 'sessions') return (await import('./commands/sessions.js')).sessionsCommand(options, env, stdout, stderr);
  if (options.command === 'mcp') return (await import('./commands/mcpList.js')).mcpCommand(options, { env, cwd, stdout, stderr, version: version() });
  if (options.command === 'view') return (await import('./commands/view.js')).viewCommand(options, { env, cwd, stdout, stderr });
  if (options.mistake !== undefined) return (await import('./commands/mistake.js')).mistakeCommand(options.mistake, { env, cwd, stdout, stderr });
  return run(options, cwd, version());
}

/**
 * Ends the process as soon as stdout and stderr have taken everything written to them. A run is over when `main`
 * returns (the transcript is flushed and closed, every tool's process is gone): what could still keep the event loop
 * busy is only work done ahead for a tool that never ran (the bash tool's probe of bubblewrap, its FIFOs, made while
 * the first reply streams; under load that took 400-900 ms past the result). Exit handlers still run.
 */
function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.destroyed || !stream.writable) done();
    else stream.write('', done);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    exitWhenFlushed(code);
  },
  (error: unknown) => {
    process.stderr.write(`agentloop: internal error: ${shown(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
    process.exitCode = 1;
  },
);
