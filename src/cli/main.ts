#!/usr/bin/env node
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ConfigError, loadModelSettings, requireModelSettings } from '../model/config.js';
import type { MessageParam, ModelCall } from '../model/types.js';
import type { RunEvent, RunResult } from '../session/run.js';
import { parseCliArgs, USAGE, UsageError, type CliOptions } from './args.js';
import { DEMO_BANNER, DEMO_MODEL_ID, DEMO_PROMPT, demoModel } from './demo.js';
import { describeError, exitCodeOf, formatToolResult, formatToolStart, palette, toJsonResult } from './output.js';

const { stdout, stderr, env } = process;
const colors = palette(stderr, env);

/** The loop and its dependencies load only when a run starts: `--help` and `--version` stay fast. */
const loadRunner = () => import('../session/run.js');

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** How to reach the model: the scripted demo, or the API from env/.env/flags. */
interface ModelChoice {
  model: string;
  modelCall?: ModelCall;
  client?: { apiKey?: string; authToken?: string; baseURL?: string };
}

function chooseModel(options: CliOptions, cwd: string): ModelChoice {
  if (options.demo) return { model: DEMO_MODEL_ID, modelCall: demoModel().call };
  const settings = requireModelSettings(loadModelSettings(env, cwd, { model: options.model }));
  const { model, ...client } = settings;
  return { model, client };
}

/** Shows a run's progress on stderr: tool calls with the start of their output, retries. */
function progressPrinter(): (event: RunEvent) => void {
  return (event) => {
    if (event.type === 'tool_start') stderr.write(`${colors.cyan(formatToolStart(event))}\n`);
    if (event.type === 'tool_result') stderr.write(`${colors.dim(formatToolResult(event))}\n`);
    if (event.type === 'retry') {
      stderr.write(colors.dim(`model call failed (${event.error}); retry ${event.attempt} in ${event.delayMs} ms\n`));
    }
  };
}

function streamJsonPrinter(): (event: RunEvent) => void {
  return (event) => {
    if (event.type === 'text') return;
    if (event.type === 'message') stdout.write(`${JSON.stringify({ type: event.message.role, message: event.message })}\n`);
    else stdout.write(`${JSON.stringify(event)}\n`);
  };
}

async function runOnce(options: CliOptions, cwd: string, choice: ModelChoice): Promise<number> {
  const controller = new AbortController();
  let signalExit = 0;
  const onSignal = (code: number) => () => {
    signalExit = code;
    controller.abort();
  };
  const onInt = onSignal(130);
  const onTerm = onSignal(143);
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);

  const format = options.outputFormat;
  const onEvent = format === 'stream-json' ? streamJsonPrinter() : format === 'text' ? progressPrinter() : undefined;
  const { runAgent } = await loadRunner();
  let result: RunResult;
  try {
    result = await runAgent(options.prompt ?? DEMO_PROMPT, {
      ...choice,
      cwd,
      signal: controller.signal,
      ...(onEvent ? { onEvent } : {}),
      ...limitsOf(options),
    });
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }

  if (format === 'text') {
    if (result.text) stdout.write(`${result.text}\n`);
    if (result.context.exitReason !== 'completed') stderr.write(`${colors.red(describeError(result))}\n`);
  } else {
    stdout.write(`${JSON.stringify(toJsonResult(result))}\n`);
  }
  return signalExit || exitCodeOf(result);
}

function limitsOf(options: CliOptions) {
  return {
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
  };
}

/** The REPL: one conversation across questions; Ctrl-C aborts a run, twice at the prompt quits. */
async function repl(options: CliOptions, cwd: string, choice: ModelChoice): Promise<number> {
  const { runAgent } = await loadRunner();
  const rl = createInterface({ input: process.stdin, output: stdout, prompt: 'agentloop >> ' });
  const lines = rl[Symbol.asyncIterator](); // buffers lines from now on, also while a run goes
  let messages: MessageParam[] = [];
  let running: AbortController | undefined;
  let armedQuit = false;
  const interrupt = () => {
    if (running) {
      running.abort();
      return;
    }
    if (armedQuit) {
      rl.close();
      return;
    }
    armedQuit = true;
    stderr.write('\n(press Ctrl-C again to quit)\n');
    rl.prompt();
  };
  rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  stderr.write(colors.dim(`agentloop ${version()} · model ${choice.model} · ${cwd}\nq, exit or an empty line quits.\n`));

  rl.prompt();
  try {
    for await (const line of lines) {
      const question = line.trim();
      if (question === '' || question === 'q' || question === 'exit') break;
      armedQuit = false;
      running = new AbortController();
      const printProgress = progressPrinter();
      let streamed = false;
      const result = await runAgent(question, {
        ...choice,
        ...limitsOf(options),
        cwd,
        messages,
        signal: running.signal,
        onEvent: (event) => {
          if (event.type === 'text') {
            stdout.write(event.delta);
            streamed = true;
          } else {
            if (streamed && (event.type === 'tool_start' || event.type === 'message')) {
              stdout.write('\n');
              streamed = false;
            }
            printProgress(event);
          }
        },
      });
      running = undefined;
      messages = result.context.messages;
      if (streamed) stdout.write('\n');
      else if (result.text && result.context.exitReason === 'completed') stdout.write(`${result.text}\n`);
      if (result.context.exitReason !== 'completed') stderr.write(`${colors.red(describeError(result))}\n`);
      rl.prompt();
    }
  } finally {
    process.off('SIGINT', interrupt);
    rl.close();
  }
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  let options: CliOptions;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(`agentloop: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options.command === 'help') {
    stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (options.command === 'version') {
    stdout.write(`${version()}\n`);
    return 0;
  }
  const cwd = resolve(options.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    stderr.write(`agentloop: --cwd ${cwd} is not a directory\n`);
    return 2;
  }
  let choice: ModelChoice;
  try {
    choice = chooseModel(options, cwd);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    stderr.write(`agentloop: ${error.message}\n`);
    return 2;
  }
  if (options.demo) stderr.write(`${colors.bold(DEMO_BANNER)}\n`);
  if (options.prompt !== undefined || options.demo) return runOnce(options, cwd, choice);
  return repl(options, cwd, choice);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    stderr.write(`agentloop: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
