/**
 * The REPL (`agentloop` without -p): one conversation across questions. Loaded by ./run.js only when it starts; it
 * shares run.js's session, progress and limit helpers.
 */
import { createInterface } from 'node:readline';
import type { MessageParam } from '../core/messages.js';
import type { CliOptions } from './args.js';
import type { PreparedSession } from './sessions.js';
import { describeError, palette } from './output.js';
import { type ModelChoice, limitsOf, openSession, progressPrinter } from './run.js';
import { onEndSignals } from './signals.js';

const { stdout, stderr, env } = process;
const colors = palette(stderr, env);

const loadRunner = () => import('../session/run.js');
const loadSessions = () => import('./sessions.js');
const loadPages = () => import('./view.js');

/** The REPL: one conversation across questions; Ctrl-C aborts a run, twice at the prompt quits. */
export async function repl(options: CliOptions, cwd: string, choice: ModelChoice, version: string): Promise<number> {
  const { runAgent } = await loadRunner();
  const rl = createInterface({ input: process.stdin, output: stdout, prompt: 'agentloop >> ' });
  const lines = rl[Symbol.asyncIterator](); // buffers lines from now on, also while a run goes
  // A new session's transcript is created at the first question (or now, for a page to show it).
  const eager = options.resume !== undefined || options.continue === true || options.view === true;
  let session: PreparedSession | undefined = eager ? await openSession(options, cwd, choice.model, null) : undefined;
  const pages =
    options.view || options.inspect
      ? await (await loadPages()).startLivePages(
          options,
          { id: session?.id ?? '', recorded: session?.recorder !== undefined },
          { env, cwd, stdout, stderr },
        )
      : undefined;
  let messages: MessageParam[] = session?.messages ?? [];
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
  const signals = onEndSignals(['SIGTERM', 'SIGHUP'], () => {
    running?.abort();
    rl.close();
  });
  stderr.write(colors.dim(`agentloop ${version} · model ${choice.model} · ${cwd}\nq, exit or an empty line quits.\n`));

  /** One run of the loop: on a question, or on the history alone (`null`) to finish a cut-off turn. */
  const ask = async (question: string | null) => {
    session ??= await openSession(options, cwd, choice.model, question);
    if (question !== null) session.recorder?.prompt(question); // durable now (runAgent's own call is then a no-op)
    running = new AbortController();
    if (signals.exitCode) running.abort();
    const printProgress = progressPrinter();
    let streamed = false; // a line of streamed text is open
    let shown = false; // some of the answer was streamed
    const resumeAt = session.turnCount;
    session.turnCount = undefined; // only the first run after a resume goes on counting
    const result = await runAgent(question, {
      ...choice,
      ...limitsOf(options, resumeAt, session.outputDir),
      ...(resumeAt !== undefined ? { turnCount: resumeAt } : {}),
      ...(pages?.inspect ? { inspect: pages.inspect } : {}),
      cwd,
      messages,
      sessionId: session.id,
      ...(session.recorder ? { session: session.recorder } : {}),
      signal: running.signal,
      onEvent: (event) => {
        if (event.type === 'text') {
          stdout.write(event.delta);
          streamed = true;
          shown = true;
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
    else if (!shown && result.text && result.context.exitReason === 'completed') stdout.write(`${result.text}\n`);
    if (result.context.exitReason !== 'completed') stderr.write(`${colors.red(describeError(result))}\n`);
    stderr.write(`${colors.dim((await loadSessions()).usageSummary(result))}\n`);
  };

  try {
    if (session?.awaitsModel) {
      stderr.write(colors.dim(`Finishing the interrupted turn of session ${session.id}.\n`));
      await ask(null);
    }
    rl.prompt();
    for await (const line of lines) {
      const question = line.trim();
      if (question === '' || question === 'q' || question === 'exit' || signals.exitCode) break;
      armedQuit = false;
      await ask(question);
      if (!signals.exitCode) rl.prompt();
    }
  } finally {
    process.off('SIGINT', interrupt);
    signals.stop();
    rl.close();
    session?.recorder?.close();
    await pages?.close();
  }
  return signals.exitCode;
}
