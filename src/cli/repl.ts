/**
 * The REPL (`agentloop` without -p): one conversation across questions, with slash commands (./slash.ts), multi-line
 * input (./replInput.ts) and a thinking line while the model works (./spinner.ts). Loaded by ./run.js only when it
 * starts; it shares start.js's session, progress and limit helpers with the one-shot run.
 */
import type { MessageParam } from '../core/messages.js';
import type { RunEvent } from '../core/events.js';
import { addUsage, zeroUsage } from '../core/usage.js';
import { textOf } from '../history/messages.js';
import type { CliOptions } from './args.js';
import type { PreparedSession } from './sessions.js';
import { describeError, palette } from './output.js';
import { PROMPT, openReplInput } from './replInput.js';
import { type ModelChoice, openSession, progressPrinter, refusalWarner } from './start.js';
import { ask, conversationOf, type Conversation } from './ask.js';
import { onEndSignals } from './signals.js';
import { type LastRun, type SessionCost, type SlashCommand, costText, helpText, parseSlash, stateText, unknownText } from './slash.js';
import { createSpinner } from './spinner.js';
import { shown } from './terminal.js';

const { stdout, stderr, env } = process;
const colors = palette(stderr, env);

const loadSessions = () => import('./sessions.js');
const loadPages = () => import('./view.js');

/** The options for the session after `/clear`: a new one, whatever --resume, --continue or --session-id chose. */
function newSessionOptions(options: CliOptions): CliOptions {
  const fresh: Record<string, unknown> = { ...options };
  for (const key of ['resume', 'continue', 'sessionId', 'forkSession']) delete fresh[key];
  return fresh as unknown as CliOptions; // the same object less optional fields
}

const noCost = (model: string): SessionCost => ({ model, runs: 0, modelCalls: 0, usage: zeroUsage(), costUsd: 0 });

/** The REPL: one conversation across questions; Ctrl-C aborts a run, twice at the prompt quits. */
export async function repl(options: CliOptions, cwd: string, choice: ModelChoice, version: string): Promise<number> {
  const input = openReplInput(process.stdin, stdout); // buffers messages from now on, also while a run goes
  const spinner = createSpinner({ stream: stderr, env });
  let sessionOptions = options;
  // A new session's transcript is created at the first question (or now, for a page to show it).
  const eager = options.resume !== undefined || options.continue === true || options.view === true;
  let session: PreparedSession | undefined = eager ? await openSession(options, cwd, choice.model, null) : undefined;
  let conversation: Conversation | undefined; // the session's tools, made once per session
  const pages =
    options.view || options.inspect
      ? await (await loadPages()).startLivePages(
          options,
          { id: session?.id ?? '', recorded: session?.recorder !== undefined },
          { env, cwd, stdout, stderr },
        )
      : undefined;
  let messages: MessageParam[] = session?.messages ?? [];
  let last: LastRun | undefined;
  let cost = noCost(choice.model);
  let running: AbortController | undefined;
  let armedQuit = false;
  const interrupt = () => {
    if (running) {
      running.abort();
      return;
    }
    if (armedQuit) {
      input.close();
      return;
    }
    armedQuit = true;
    input.discard();
    stderr.write('\n(press Ctrl-C again to quit)\n');
    input.prompt();
  };
  input.rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  const signals = onEndSignals(['SIGTERM', 'SIGHUP'], () => {
    running?.abort();
    spinner.stop();
    input.close();
  });
  stderr.write(colors.dim(`agentloop ${version} · model ${choice.model} · ${cwd}\n/help lists the commands; /exit or Ctrl-D quits.\n`));

  /** What a run shows as it goes: the model's text (of every turn), tool calls, retries, the thinking line. */
  const shower = () => {
    const printProgress = progressPrinter();
    const warn = refusalWarner();
    let open = false; // a line of streamed text is open
    let turnText = false; // this turn's text was streamed
    const endLine = () => {
      if (open) stdout.write('\n');
      open = false;
    };
    const onEvent = (event: RunEvent) => {
      warn(event);
      if (event.type === 'request') {
        endLine();
        spinner.start();
        turnText = false;
        return;
      }
      if (event.type === 'transition' || event.type === 'decision' || event.type === 'stream_event') return;
      spinner.stop();
      if (event.type === 'text') {
        stdout.write(shown(event.delta));
        open = event.delta.length > 0 && !event.delta.endsWith('\n');
        turnText = true;
      } else if (event.type === 'message' && event.origin === 'model') {
        // A model that does not stream its text (a scripted one) shows each turn's text whole.
        const text = turnText ? '' : textOf(event.message.content);
        endLine();
        if (text) stdout.write(`${shown(text)}\n`);
        turnText = true;
      } else if (event.type !== 'message') {
        endLine();
        printProgress(event);
      }
    };
    return { onEvent, end: endLine };
  };

  /** One run of the loop: on a question, or on the history alone (`null`) to finish a cut-off turn. */
  const askNext = async (question: string | null) => {
    session ??= await openSession(sessionOptions, cwd, choice.model, question);
    const asked = conversation?.session === session ? conversation : await conversationOf(options, cwd, choice, session);
    conversation = asked;
    if (question !== null) session.recorder?.prompt(question); // durable now (runAgent's own call is then a no-op)
    running = new AbortController();
    if (signals.exitCode) running.abort();
    const show = shower();
    const resumeAt = session.turnCount;
    session.turnCount = undefined; // only the first run after a resume goes on counting
    try {
      const result = await ask(asked, question, messages, {
        choice,
        signal: running.signal,
        onEvent: show.onEvent,
        turnCount: resumeAt,
        ...(pages?.inspect ? { extra: { inspect: pages.inspect } } : {}),
      });
      spinner.stop();
      show.end();
      messages = result.context.messages;
      last = { state: result.state, context: result.context };
      cost = {
        ...cost,
        runs: cost.runs + 1,
        modelCalls: cost.modelCalls + result.context.turnUsage.length,
        usage: addUsage(cost.usage, result.context.usage),
        costUsd: cost.costUsd + result.context.costUsd,
      };
      if (result.context.exitReason !== 'completed') stderr.write(`${colors.red(shown(describeError(result)))}\n`);
      stderr.write(`${colors.dim(shown((await loadSessions()).usageSummary(result)))}\n`);
    } finally {
      spinner.stop();
      running = undefined;
    }
  };

  /** Runs a slash command; `true` when it ends the REPL. */
  const command = (slash: SlashCommand): boolean => {
    switch (slash.name) {
      case 'exit':
        return true;
      case 'help':
        stdout.write(`${helpText()}\n`);
        break;
      case 'cost':
        stdout.write(`${shown(costText(cost, session?.id))}\n`);
        break;
      case 'state':
        stdout.write(`${shown(stateText(last, messages, stdout.columns ?? 80))}\n`);
        break;
      case 'clear': {
        const old = session?.id;
        session?.recorder?.close();
        session = undefined;
        sessionOptions = newSessionOptions(options);
        messages = [];
        last = undefined;
        cost = noCost(choice.model);
        const saved = old ? `; session ${old} stays saved (agentloop --resume ${old.slice(0, 8)})` : '';
        stdout.write(`New session: the next question starts it${shown(saved)}.\n`);
        if (pages) stderr.write(colors.dim('The page goes on showing the session it opened with.\n'));
        break;
      }
      case 'unknown':
        stderr.write(`${shown(unknownText(slash.text))}\n`);
        break;
    }
    return false;
  };

  try {
    if (session?.awaitsModel) {
      stderr.write(colors.dim(`Finishing the interrupted turn of session ${shown(session.id)}.\n`));
      await askNext(null);
    }
    // `agentloop "q"`: the REPL, asking q first.
    const first = options.prompt?.trim();
    if (first && !signals.exitCode) {
      stdout.write(`${PROMPT}${shown(first)}\n`);
      await askNext(first);
    }
    input.prompt();
    for (;;) {
      const message = await input.next();
      if (message === null || signals.exitCode) break;
      const text = message.replace(/^(\s*\n)+/, '').trimEnd();
      if (text.trim() === '') {
        input.prompt(); // an empty line sends nothing
        continue;
      }
      armedQuit = false;
      if (text.trim() === 'q' || text.trim() === 'exit') break; // the old ways out still work
      const slash = parseSlash(text);
      if (slash) {
        if (command(slash)) break;
      } else {
        await askNext(text);
      }
      if (!signals.exitCode) input.prompt();
    }
  } finally {
    process.off('SIGINT', interrupt);
    signals.stop();
    spinner.stop();
    input.close();
    session?.recorder?.close();
    await pages?.close();
  }
  return signals.exitCode;
}
