/**
 * Everything after the command line is parsed, loaded by ../main.js only when a command needs it. The loop and its
 * dependencies load later still, when a run starts.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, loadModelSettings, requireModelSettings } from '../../anthropic/settings.js';
import type { RunEvent } from '../../core/events.js';
import type { MessageParam } from '../../core/messages.js';
import { toolLookup } from '../../core/tool.js';
import { defaultRunConfig } from '../../core/config.js';
import { DEFAULT_MODEL } from '../../core/models.js';
import type { RunResult } from '../../run/runAgent.js';
import type { CliOptions } from '../commandLine/args.js';
import { demoBanner, demoLang, DEMO_MODEL_ID, DEMO_PROMPT, demoModel, stepHint } from './demo.js';
import { describeError, exitCodeOf, palette, toJsonResult } from '../printers/output.js';
import { onEndSignals } from '../setup/signals.js';
import { jsonLine, outputRedactor, shown, useRedactor } from '../printers/terminal.js';
import { credentialRedactor } from '../../tools/bash/judge/secrets.js';
import { type ModelChoice, openSession, progressPrinter, refusalWarner } from '../setup/start.js';
import { ask, conversationOf, type Conversation } from '../setup/ask.js';
import type { PermissionGate } from '../../permissions/gate.js';
import { cliPermissionGate, deniedCalls, ROOT_BYPASS_REFUSAL, RuleError, refusesBypass, sayDenied } from '../setup/permissions.js';
import { RootBypassError } from '../../permissions/root.js';
import { initFacts, runMeter, streamJsonPrinter } from '../printers/streamJson.js';
import { startTelemetry } from '../setup/telemetry.js';
import { cliMcpConfigs, type McpScopes, settleMcp, startConfigs, startCliMcp, withMcpTools } from '../setup/mcp.js';
import type { SessionMcp } from '../setup/sessionMcp.js';
import { builtInNames, missingTools } from '../setup/toolSet.js';
import { withPromptFiles } from '../setup/promptFiles.js';
import { apiErrorLine, apiErrorOf } from '../printers/claudeLines.js';
import { selfCommand } from '../commandLine/self.js';
import { maxAttempts, reminderLine, structuredFailure, structuredResult, StructuredTurn } from '../setup/structuredOutput.js';
import type { Question } from '../../transcript/records.js';

const { stdout, stderr, env } = process;
const colors = palette(stderr, env);

const loadSessions = () => import('./sessions.js');
const loadPages = () => import('./view.js');

/** With --view or --inspect, the pages stay up after a one-shot run until Ctrl-C. */
async function keepServing(pages: { serving: boolean; close(): Promise<void> }): Promise<void> {
  if (pages.serving) {
    stderr.write(colors.dim('The run is over; the page stays up until Ctrl-C.\n'));
    await (await loadPages()).waitForInterrupt();
  }
  await pages.close();
}

function chooseModel(options: CliOptions, cwd: string): ModelChoice {
  if (options.demo) return { model: DEMO_MODEL_ID, modelCall: demoModel().call };
  const loaded = loadModelSettings(env, cwd, { model: options.model });
  // Claude Code's default when no model is set (with a key).
  if (!loaded.model && (loaded.apiKey || loaded.authToken)) loaded.model = DEFAULT_MODEL;
  const settings = requireModelSettings(loaded, `${selfCommand()} --demo`);
  const { model, ...client } = settings;
  return { model, client };
}

/** What a one-shot run shows while it goes (stream-json lines, or --verbose's progress), and what it counts for the result. */
function onePrinter(options: CliOptions, cwd: string, choice: ModelChoice, conversation: Conversation, version: string) {
  const format = options.outputFormat;
  const meter = runMeter(undefined, options.maxTokens);
  // Text: only the answer, unless --verbose (or the demo, which is there to show the loop) asks for the progress.
  const verbose = options.verbose === true || options.demo;
  const show =
    format === 'stream-json'
      ? streamJsonPrinter({ ...initFacts(options, cwd, choice, { id: conversation.session.id, tools: conversation.tools, agents: conversation.agents }, version), ...(choice.permissions ? { permissionMode: ('current' in choice.permissions ? choice.permissions.current : choice.permissions).mode } : {}) }, (line) => stdout.write(line), options)
      : format === 'text' && verbose
        ? progressPrinter(toolLookup(conversation.tools))
        : undefined;
  const warn = refusalWarner(toolLookup(conversation.tools));
  const denied = deniedCalls();
  const printer = (event: RunEvent) => {
    meter.onEvent(event);
    denied.onEvent(event);
    warn(event);
    show?.(event);
    // Where nobody is asked and no output lists it, a denied call is said on stderr.
    if (format === 'text' && event.type === 'permission_denied') sayDenied(event);
  };
  return { meter, verbose, printer, denials: denied.denials };
}

async function runOnce(options: CliOptions, cwd: string, choice: ModelChoice, version: string): Promise<number> {
  // The demo asks its question, unless it goes on with a session (--demo --continue).
  const resuming = options.resume !== undefined || options.continue === true;
  const prompt = options.prompt ?? (options.demo && !resuming ? DEMO_PROMPT : null);
  const session = await openSession(options, cwd, choice.model, prompt);
  if (prompt === null && !session.awaitsModel) {
    session.recorder?.close();
    const why = session.messages.length === 0 ? 'has no question yet' : "ended with the model's answer";
    stderr.write(`agentloop: session ${shown(session.id)} ${why}: ask the next question with -p "..."\n`);
    return 2;
  }
  const pages = await (options.view || options.inspect
    ? (await loadPages()).startLivePages(options, { id: session.id, recorded: session.recorder !== undefined }, { env, cwd, stdout, stderr })
    : Promise.resolve({ inspect: undefined, gate: undefined, serving: false, close: async () => {} }));

  const controller = new AbortController();
  const signals = onEndSignals(['SIGINT', 'SIGTERM', 'SIGHUP'], () => controller.abort());

  const format = options.outputFormat;
  const structured = options.jsonSchema ? new StructuredTurn(options.jsonSchema, maxAttempts(env)) : undefined;
  if (structured) choice = structured.choice(choice);
  const conversation = await conversationOf(options, cwd, choice, session);
  const { meter, verbose, printer, denials } = onePrinter(options, cwd, choice, conversation, version);
  const signal = structured ? structured.signal(controller.signal) : controller.signal;
  const extra = { ...(pages.inspect ? { inspect: pages.inspect } : {}), ...(pages.gate ? { gate: pages.gate } : {}) };
  const once = (q: Question | null, history: MessageParam[], turnCount: number | undefined) =>
    ask(conversation, q, history, { choice, signal, onEvent: printer, turnCount, extra });
  let result: RunResult;
  try {
    result = structured
      ? await structured.around(once, (text) => format === 'stream-json' && stdout.write(jsonLine(reminderLine(text, session.id))))(prompt, session.messages, session.turnCount)
      : await once(prompt, session.messages, session.turnCount);
  } catch (error) {
    await pages.close();
    throw error;
  } finally {
    session.recorder?.close();
    signals.stop();
    // A stepped run is over: its page says so (nothing waits, nothing will).
    pages.gate?.end();
  }

  if (format === 'text') {
    await printText(result, options, structuredFailure(structured?.outcome()), verbose);
    // The demo's way in: the command that steps it (already stepped: the page is the way).
    if (options.demo && !options.step) stderr.write(`${stepHint(demoLang(options.lang, env), selfCommand())}\n`);
  } else {
    const failed = format === 'stream-json' ? apiErrorLine(result, session.id) : undefined;
    if (failed) stdout.write(jsonLine(failed));
    stdout.write(jsonLine(structuredResult(toJsonResult(result, { ...meter.facts(), permissionDenials: denials }), structured?.outcome())));
  }
  if (!signals.exitCode) await keepServing(pages);
  else await pages.close();
  return signals.exitCode || exitCodeOf(result);
}

/**
 * A text run's output: the answer as a terminal may show it, also into a pipe (--output-format json has it exact), an
 * API error in its place as in Claude Code's (`API Error: 400 ...`); why the run did not complete on stderr. A run
 * --max-turns stopped prints what Claude Code 2.1.197 prints, `Error: Reached max turns (N)` on stdout with no newline
 * and nothing on stderr (exit 1); --verbose, whose progress is on stderr, also says there how it stopped.
 */
async function printText(result: RunResult, options: CliOptions, failed: string | undefined, verbose: boolean): Promise<void> {
  const stopped = result.context.exitReason !== 'completed';
  const maxTurns = result.context.exitReason === 'max_turns' && failed === undefined;
  const answer = maxTurns ? undefined : (apiErrorOf(result)?.text ?? result.text);
  if (maxTurns) stdout.write(`Error: Reached max turns (${options.maxTurns ?? defaultRunConfig.maxTurns})`);
  if (answer) stdout.write(`${shown(answer)}\n`);
  if (stopped && (!maxTurns || verbose)) stderr.write(`${colors.red(shown(failed ?? describeError(result)))}\n`);
  if (verbose) stderr.write(`${colors.dim(shown((await loadSessions()).usageSummary(result)))}\n`);
}

/**
 * The options with the prompt piped on stdin (../setup/stdin.ts: the prompt, or context after it) and the prompt files' texts
 * (../setup/promptFiles.ts); the exit code when a -p run has no prompt, or a file cannot be read.
 */
async function withPipedPrompt(given: CliOptions): Promise<CliOptions | number> {
  // --system-prompt-file, --append-system-prompt-file: read first, a bad file is the run's end (exit 1, as Claude Code).
  const options = withPromptFiles(given);
  if ('error' in options) {
    stderr.write(`agentloop: ${shown(options.error)}\nsee ${selfCommand()} --help\n`);
    return 1;
  }
  const piped = await (await import('../setup/stdin.js')).runPrompt(options, env);
  if (piped.error) {
    stderr.write(`agentloop: ${piped.error}\n`);
    return 1;
  }
  if (piped.note) stderr.write(`${colors.dim(piped.note)}\n`);
  if (piped.text !== undefined) return { ...options, prompt: piped.text };
  // `-p --allowedTools Bash go`: the rule list took the prompt (as Claude Code's does); with nothing else to ask, it is the prompt.
  if (options.print && options.lastWordPrompt) return { ...options, ...options.lastWordPrompt };
  const resuming = options.resume !== undefined || options.continue === true;
  if (options.print && options.prompt === undefined && !options.demo && !resuming && options.inputFormat !== 'stream-json') {
    const self = selfCommand();
    stderr.write(`agentloop: -p needs a prompt: ${self} -p "PROMPT", or pipe it: echo "PROMPT" | ${self} -p\nsee ${self} --help\n`);
    return 2;
  }
  return options;
}

/**
 * The gate of --allowedTools / --disallowedTools / --permission-mode (../setup/permissions.ts), and --mcp-config's servers,
 * started now beside the rest of the start-up (the run waits for them before its first request: ../setup/mcp.ts); exit code 2
 * with one line when a rule or a server's configuration is bad.
 */
async function gateAndServers(options: CliOptions, cwd: string, version: () => string) {
  let gate: PermissionGate;
  try {
    // With no flag nor settings file, -p, the REPL and stream-json input are in mode default, as Claude Code's
    // (docs/cli.md, "Which entry point runs what").
    gate = cliPermissionGate(options, cwd, env, (await import('../../run/defaultTools.js')).defaultTools({ cwd }), warn);
  } catch (error) {
    if (error instanceof RootBypassError) return refuseBypass();
    if (!(error instanceof RuleError || (error instanceof Error && error.name === 'SettingsError'))) throw error;
    stderr.write(`agentloop: ${shown(error.message)}\nsee ${selfCommand()} --help\n`);
    return 2;
  }
  try {
    const read = options.demo ? 'none' : options.print || options.inputFormat === 'stream-json' ? 'print' : 'interactive';
    if (options.inputFormat === 'stream-json') return { gate, session: await sessionMcp(options, cwd, version(), read) };
    return { gate, servers: await startCliMcp(options, cwd, env, version(), { read, warn }) };
  } catch (error) {
    if (!(error instanceof Error && (error.name === 'McpConfigError' || error.name === 'SandboxUnavailableError'))) throw error;
    stderr.write(`agentloop: ${shown(error.message)}\n`);
    return 2;
  }
}

/**
 * A stream-json session's servers (../setup/sessionMcp.ts): the configurations read and checked now; started now, or with
 * `--await-initialize` when the Agent SDK's initialize brings its own.
 */
async function sessionMcp(options: CliOptions, cwd: string, version: string, read: McpScopes): Promise<SessionMcp> {
  const configs = await cliMcpConfigs(options, cwd, env, { read, warn });
  const launch = async (all: typeof configs) => {
    const servers = await startConfigs(all, options, cwd, env, version);
    if (servers) await settleMcp(servers, warn);
    return servers;
  };
  const { SessionMcp } = await import('../setup/sessionMcp.js');
  const session = new SessionMcp(configs, launch, options.awaitInitialize === true, env);
  if (!session.awaitsInitialize) await session.start();
  return session;
}

/**
 * A command that needs more than the usage text: a run, the REPL, `sessions` or `view`. `version` gives the package's
 * version (for the REPL's banner).
 */
export async function run(options: CliOptions, version: () => string): Promise<number> {
  const cwd = resolve(options.cwd ?? process.cwd());
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    stderr.write(`agentloop: --cwd ${shown(cwd)} is not a directory\n`);
    return 2;
  }
  if (refusesBypass(options, env)) return refuseBypass();
  // Nothing written from here on holds the key, the token (also from .env) or a credential of the environment.
  useRedactor(credentialRedactor(env, loadModelSettings(env, cwd)));
  if (options.command === 'sessions') return (await loadSessions()).sessionsCommand(options, env, stdout, stderr);
  if (options.command === 'mcp') return (await import('./mcpList.js')).mcpCommand(options, { env, cwd, stdout, stderr, version: version() });
  if (options.command === 'view') return (await loadPages()).viewCommand(options, { env, cwd, stdout, stderr });
  if (options.mistake !== undefined) return (await import('./mistake.js')).mistakeCommand(options.mistake, { env, cwd, stdout, stderr });
  // The bash tool's shell parser loads while the loop and the SDK do: a reply that opens with a read-only command can
  // start it mid-stream only once the parser is ready (about 0.1 s after it starts loading; the tool's own prepare()
  // starts it only when the first reply begins).
  import('../../tools/bash/judge/shell/load.js').then((m) => m.loadShellParser()).catch(() => undefined);
  let model: ModelChoice;
  try {
    model = { ...chooseModel(options, cwd), redactor: outputRedactor() };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    stderr.write(`agentloop: ${shown(error.message)}\n`);
    return 2;
  }
  const asking = await withPipedPrompt(options);
  if (typeof asking === 'number') return asking;
  options = asking;
  const started = await gateAndServers(options, cwd, version);
  if (typeof started === 'number') return started;
  const { gate, servers, session: mcp } = { servers: undefined, session: undefined, ...started };
  let choice: ModelChoice = { ...model, permissions: gate };
  if (options.demo) stderr.write(`${colors.bold(demoBanner(demoLang(options.lang, env)))}\n`);
  const { BUILT_IN_TOOLS } = await import('../../run/defaultTools.js');
  const missing = missingTools(options.tools, BUILT_IN_TOOLS);
  if (missing.length > 0) warn(`agentloop: --tools: ${missing.join(', ')} left out: agentloop's built-in tools are ${builtInNames(BUILT_IN_TOOLS)} (Claude Code too leaves out a name it has no tool for)`);
  // Traces, when the OTEL_* variables ask for them (../setup/telemetry.ts); the SDK loads only then.
  const telemetry = await startTelemetry(env, version(), warn);
  if (telemetry) choice = { ...choice, tracing: telemetry.tracing };
  // Without -p (json and stream-json imply it), the REPL opens; --demo is one run.
  const oneShot = options.print || options.demo;
  try {
    choice = await withMcpTools(choice, servers, warn);
    if (options.inputFormat === 'stream-json') {
      const { streamInput } = await import('../control/streamInput.js');
      return await streamInput(options, cwd, choice, version(), { stdin: process.stdin, stdout, stderr, env }, gate, mcp);
    }
    return await (oneShot ? runOnce(options, cwd, choice, version()) : (await import('./repl.js')).repl(options, cwd, choice, version(), gate));
  } catch (error) {
    if (!(error instanceof Error && ['SessionError', 'SandboxUnavailableError', 'PortError'].includes(error.name))) throw error;
    stderr.write(`agentloop: ${shown(error.message)}\n`);
    return 2;
  } finally {
    await Promise.all([telemetry?.shutdown(), servers?.close(), mcp?.close()]);
  }
}

/** Claude Code's refusal of bypassPermissions as root outside a sandbox (a flag, a settings file's defaultMode): exit 1. */
function refuseBypass(): number {
  stderr.write(`${ROOT_BYPASS_REFUSAL}\n${colors.dim('(as root, only where IS_SANDBOX=1 says this machine is a sandbox: docs/cli.md)')}\n`);
  return 1;
}

// Lines that may carry outside text (an exporter's error, an MCP server's): secrets cut, controls shown (../printers/terminal.ts).
const warn = (line: string) => stderr.write(`${colors.dim(shown(line))}\n`);
