#!/usr/bin/env node
/**
 * The entry point. It loads only what the command line needs: `--version` is answered by this module alone, `--help`
 * loads the usage text (./usage.js), a bad command line only the parser (./args.js: one line and a pointer to --help), and ./run.js (with the loop,
 * the SDK, XState and execa behind it) loads only for a command that does something.
 */
import { readFileSync, writeSync } from 'node:fs';
import type { CliOptions } from './args.js';
import { shown } from './terminal.js';

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

/** `--version`, `-v`, `--help` or `-h` alone: the answer needs no parser (the parser gives the same one). */
function alone(argv: string[]): CliOptions | undefined {
  if (argv.length !== 1) return undefined;
  const [flag] = argv;
  if (flag === '--version' || flag === '-v') return { command: 'version', print: false, demo: false, outputFormat: 'text' };
  if (flag === '--help' || flag === '-h') return { command: 'help', print: false, demo: false, outputFormat: 'text' };
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

/** A bad command line: one line and the pointer to --help, exit 2; any other error is thrown on. */
function usageFailure(error: unknown, UsageError: new (...args: never[]) => Error): number {
  if (!(error instanceof UsageError)) throw error;
  print(2, `agentloop: ${error.message}\nsee agentloop --help\n`);
  return 2;
}

/** Durable runs on Restate (`worker`, `balancer`, `submit`, `result`, `messages`, `view --restate`): their own parser and module. */
async function durableMain(argv: string[]): Promise<number | undefined> {
  if (!['worker', 'balancer', 'submit', 'result', 'messages', 'view'].includes(argv[0] ?? '')) return undefined;
  const { isDurableCommand, parseDurableArgs } = await import('./durableArgs.js');
  if (!isDurableCommand(argv)) return undefined;
  const { UsageError } = await import('./argValues.js');
  let options;
  try {
    options = parseDurableArgs(argv);
  } catch (error) {
    return usageFailure(error, UsageError);
  }
  await enableCompileCache();
  const { runDurable } = await import('./durable.js');
  return runDurable(options, { env: process.env, version: version(), cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
}

export async function main(argv: string[]): Promise<number> {
  const durable = await durableMain(argv);
  if (durable !== undefined) return durable;
  let options = alone(argv);
  if (!options) {
    const { parseCliArgs, UsageError } = await import('./args.js');
    try {
      options = parseCliArgs(argv);
    } catch (error) {
      return usageFailure(error, UsageError);
    }
  }
  if (options.command === 'version') {
    print(1, `${version()}\n`);
    return 0;
  }
  if (options.command === 'help') {
    const { USAGE } = await import('./usage.js');
    print(1, `${USAGE}\n`);
    return 0;
  }
  await enableCompileCache();
  const { run } = await import('./run.js');
  return run(options, version);
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
