/**
 * Everything after the command line is parsed, loaded by ../main.js only when a command needs it. The loop and its
 * dependencies load later still, when a run starts.
 */
import type { MessageParam } from '../../core/messages.js';
import type { Tool } from '../../core/tool.js';
import type { RunResult } from '../../run/runAgent.js';
import type { Question } from '../../transcript/records.js';
import type { CliOptions } from '../commandLine/args.js';
import { selfCommand } from '../commandLine/self.js';
import { exitCodeOf, palette } from '../printers/output.js';
import { printerOf } from '../printers/byFormat.js';
import { shown } from '../printers/terminal.js';
import { ask, sessionSetup } from '../setup/ask.js';
import { compactCommand } from '../setup/compactCommand.js';
import { setUp } from '../setup/pipeline.js';
import { withRun, type RunSetup } from '../setup/runSetup.js';
import { onEndSignals } from '../setup/signals.js';
import { openSession } from '../setup/start.js';
import { maxAttempts, StructuredTurn } from '../setup/structuredOutput.js';
import { demoBanner, demoLang, DEMO_PROMPT, stepHint } from './demo.js';

// What every local command starts with, for main.ts (which loads it through this module: see its `local`).
export { localStart } from '../setup/pipeline.js';

const { stdout, stderr, env } = process;
const colors = palette(stderr, env);

const loadPages = () => import('./view.js');

/** With --view or --inspect, the pages stay up after a one-shot run until Ctrl-C. */
async function keepServing(pages: { serving: boolean; close(): Promise<void> }): Promise<void> {
  if (pages.serving) {
    stderr.write(colors.dim('The run is over; the page stays up until Ctrl-C.\n'));
    await (await loadPages()).waitForInterrupt();
  }
  await pages.close();
}

/**
 * What the run's tools start ahead for it (the bash tool's contained shell: tools/bash/run/spare.ts) starts now, not when
 * its first request goes: that chain of processes (the lifeline's watcher, bubblewrap, its namespace) comes up beside
 * the main thread while the loop loads, so that a reply that comes at once finds it ready (on a busy machine it came up
 * after the reply's handling, and the first command waited for it). The run's own `prepare` at its first request finds
 * it started. Aborting the controller stops it.
 */
async function startAhead(tools: readonly Tool[], cwd: string): Promise<AbortController> {
  const ahead = new AbortController();
  // Not the file tools': theirs loads their packages while the model thinks, from the run's own call on (after the
  // request), never beside the start-up (../../tools/fileAccess/fileTools.ts; loaded already with the tools).
  const { isFileTool } = await import('../../tools/fileAccess/fileTools.js');
  for (const tool of tools.filter((t) => !isFileTool(t))) {
    try {
      tool.prepare?.({ cwd, signal: ahead.signal });
    } catch {
      // only a head start
    }
  }
  return ahead;
}

/** One run (`-p`, `--demo`): its session, its pages (--view, --inspect), the question asked, printed as its format says. */
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

  const instructions = prompt === null ? undefined : compactCommand(prompt);
  if (instructions !== undefined) {
    // `-p "/compact ..."`: the session's history compacted now, no model turn (as Claude Code's -p).
    const setup = await sessionSetup(base, session).catch(async (error: unknown) => (await pages.close(), Promise.reject(error)));
    try {
      return await (await import('./compactOnce.js')).compactOnce(setup, session.messages, instructions, options.outputFormat, { stdout, stderr });
    } finally {
      session.recorder?.close();
      await pages.close();
    }
  }
  const structured = options.jsonSchema ? new StructuredTurn(options.jsonSchema, maxAttempts(env)) : undefined;
  const paged = withRun(base, { ...(pages.inspect ? { inspect: pages.inspect } : {}), ...(pages.gate ? { gate: pages.gate } : {}) });
  const setup = await sessionSetup(structured ? structured.setup(paged) : paged, session);
  const printer = printerOf(setup, (line) => stdout.write(line));
  const signal = structured ? structured.signal(controller.signal) : controller.signal;
  const once = (q: Question | null, history: MessageParam[], turnCount: number | undefined) => ask(setup, q, history, { signal, onEvent: printer.onEvent, turnCount });
  const ahead = await startAhead(setup.tools, cwd);
  let result: RunResult;
  try {
    result = structured
      ? await structured.around(once, (text) => printer.remind?.(text))(prompt, session.messages, session.turnCount)
      : await once(prompt, session.messages, session.turnCount);
  } catch (error) {
    await pages.close();
    throw error;
  } finally {
    ahead.abort();
    session.recorder?.close();
    signals.stop();
    // A stepped run is over: its page says so (nothing waits, nothing will).
    pages.gate?.end();
  }

  await printer.finish(result, structured?.outcome());
  // The demo's way in: the command that steps it (already stepped: the page is the way).
  if (options.outputFormat === 'text' && options.demo && !options.step) stderr.write(`${stepHint(demoLang(options.lang, env), selfCommand())}\n`);
  if (!signals.exitCode) await keepServing(pages);
  else await pages.close();
  return signals.exitCode || exitCodeOf(result);
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
