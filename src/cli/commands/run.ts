/**
 * Everything after the command line is parsed, loaded by ../main.js only when a command needs it. The loop and its
 * dependencies load later still, when a run starts.
 */
import type { RunEvent } from '../../core/events.js';
import type { MessageParam } from '../../core/messages.js';
import { toolLookup } from '../../core/tool.js';
import { defaultRunConfig } from '../../core/config.js';
import type { RunResult } from '../../run/runAgent.js';
import type { CliOptions } from '../commandLine/args.js';
import { demoBanner, demoLang, DEMO_PROMPT, stepHint } from './demo.js';
import { describeError, exitCodeOf, palette, toJsonResult } from '../printers/output.js';
import { onEndSignals } from '../setup/signals.js';
import { jsonLine, shown } from '../printers/terminal.js';
import { openSession } from '../setup/start.js';
import { progressPrinter, refusalWarner } from '../printers/progress.js';
import { ask, sessionSetup } from '../setup/ask.js';
import { deniedCalls, sayDenied } from '../setup/permissions.js';
import { initFacts, runMeter, streamJsonPrinter } from '../printers/streamJson.js';
import { setUp } from '../setup/pipeline.js';
import { withRun, type RunSetup, type SessionSetup } from '../setup/runSetup.js';
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

/** What a one-shot run shows while it goes (stream-json lines, or --verbose's progress), and what it counts for the result. */
function onePrinter(setup: SessionSetup) {
  const { options, cwd, version, run } = setup;
  const format = options.outputFormat;
  const meter = runMeter(undefined, options.maxTokens);
  // Text: only the answer, unless --verbose (or the demo, which is there to show the loop) asks for the progress.
  const verbose = options.verbose === true || options.demo;
  const show =
    format === 'stream-json'
      ? streamJsonPrinter({ ...initFacts(options, cwd, { ...run, ...(setup.mcpStates ? { mcpStates: setup.mcpStates } : {}) }, { id: setup.session.id, tools: setup.tools, agents: setup.agents }, version), ...(run.permissions ? { permissionMode: ('current' in run.permissions ? run.permissions.current : run.permissions).mode } : {}) }, (line) => stdout.write(line), options)
      : format === 'text' && verbose
        ? progressPrinter(toolLookup(setup.tools))
        : undefined;
  const warn = refusalWarner(toolLookup(setup.tools));
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

async function runOnce(base: RunSetup): Promise<number> {
  const { options, cwd } = base;
  // The demo asks its question, unless it goes on with a session (--demo --continue).
  const resuming = options.resume !== undefined || options.continue === true;
  const prompt = options.prompt ?? (options.demo && !resuming ? DEMO_PROMPT : null);
  const session = await openSession(options, cwd, base.run.model, prompt);
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
  const paged = withRun(base, { ...(pages.inspect ? { inspect: pages.inspect } : {}), ...(pages.gate ? { gate: pages.gate } : {}) });
  const setup = await sessionSetup(structured ? structured.setup(paged) : paged, session);
  const { meter, verbose, printer, denials } = onePrinter(setup);
  const signal = structured ? structured.signal(controller.signal) : controller.signal;
  const once = (q: Question | null, history: MessageParam[], turnCount: number | undefined) => ask(setup, q, history, { signal, onEvent: printer, turnCount });
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
 * The run command, `agentloop [options] [PROMPT]`: its setup (../setup/pipeline.ts), then one run (`-p`, `--demo`), the
 * REPL (./repl.ts), or a turn for each user message of stream-json input (../control/streamInput.ts).
 */
export async function run(options: CliOptions, cwd: string, version: string): Promise<number> {
  let prepared: Awaited<ReturnType<typeof setUp>> | undefined;
  try {
    prepared = await setUp(options, cwd, version);
    if (typeof prepared === 'number') return prepared;
    const { setup, gate, mcp } = prepared;
    if (setup.options.demo) stderr.write(`${colors.bold(demoBanner(demoLang(setup.options.lang, env)))}\n`);
    if (setup.options.inputFormat === 'stream-json') {
      const { streamInput } = await import('../control/streamInput.js');
      return await streamInput(setup, { stdin: process.stdin, stdout, stderr, env }, gate, mcp);
    }
    // Without -p (json and stream-json imply it), the REPL opens; --demo is one run.
    if (setup.options.print || setup.options.demo) return await runOnce(setup);
    return await (await import('./repl.js')).repl(setup, gate);
  } catch (error) {
    if (!(error instanceof Error && ['SessionError', 'SandboxUnavailableError', 'PortError'].includes(error.name))) throw error;
    stderr.write(`agentloop: ${shown(error.message)}\n`);
    return 2;
  } finally {
    if (typeof prepared === 'object') await prepared.close();
  }
}
