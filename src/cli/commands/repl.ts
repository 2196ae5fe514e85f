/**
 * The REPL (`agentloop` without -p): one conversation across questions, with slash commands (../repl/slash.ts), multi-line
 * input (../repl/replInput.ts) and a thinking line while the model works (../printers/spinner.ts). Loaded by ./run.js only when it
 * starts; it shares start.js's session, progress and limit helpers with the one-shot run.
 */
import { toolLookup } from '../../core/tool.js';
import type { MessageParam } from '../../core/messages.js';
import type { RunResult } from '../../run/runAgent.js';
import { addUsage, zeroUsage } from '../../core/usage.js';
import type { CliOptions } from '../commandLine/args.js';
import type { PreparedSession } from '../setup/session.js';
import { palette } from '../printers/output.js';
import { PROMPT, openReplInput, type ReplInput } from '../repl/replInput.js';
import { openSession } from '../setup/start.js';
import { ask, sessionSetup } from '../setup/ask.js';
import { withRun, type RunSetup, type SessionSetup } from '../setup/runSetup.js';
import { onEndSignals } from '../setup/signals.js';
import { compactInRepl } from '../setup/compactCommand.js';
import { type LastRun, type SessionCost, type SlashCommand, costText, helpText, parseSlash, stateText, unknownText } from '../repl/slash.js';
import { createSpinner, type Spinner } from '../printers/spinner.js';
import { replPrinter } from '../printers/replTerminal.js';
import { shown } from '../printers/terminal.js';
import { selfCommand } from '../commandLine/self.js';
import type { PermissionGate } from '../../permissions/gate.js';
import { replAsker } from '../repl/replAsk.js';
import { permissionsText, rememberRule, type ReplGates } from '../repl/replPermissions.js';

const { stdout, stderr, env } = process;
const colors = palette(stderr, env);

const loadPages = () => import('./view.js');

/** The options for the session after `/clear`: a new one, whatever --resume, --continue or --session-id chose. */
function newSessionOptions(options: CliOptions): CliOptions {
  const fresh: Record<string, unknown> = { ...options };
  for (const key of ['resume', 'continue', 'sessionId', 'forkSession']) delete fresh[key];
  return fresh as unknown as CliOptions; // the same object less optional fields
}

const noCost = (model: string): SessionCost => ({ model, runs: 0, modelCalls: 0, usage: zeroUsage(), costUsd: 0 });

/**
 * The REPL: one conversation across questions; Ctrl-C aborts a run, twice at the prompt quits. What `gate`'s mode would
 * not run is asked in the terminal (../repl/replAsk.ts), or denied when stdin is not one.
 */
export async function repl(base: RunSetup, gate: PermissionGate): Promise<number> {
  const { options, cwd, version } = base;
  const input = openReplInput(process.stdin, stdout); // buffers messages from now on, also while a run goes
  const spinner = createSpinner({ stream: stderr, env });
  // In a terminal, what the mode would not run is asked; on piped input nobody can answer (the next line is the next
  // question), so it is denied as -p denies it: never run, one line on stderr with the rule that would allow it.
  // A rule allowed for the session holds for every later run: the REPL's gate is the last one made.
  const asks = process.stdin.isTTY === true;
  const gates: ReplGates = { gate, asks };
  if (asks) gates.gate = gate.withAsker(replAsker(input, stdout, () => spinner.stop(), (rule) => rememberRule(gates, cwd, rule)));
  // A new session's transcript is created at the first question (or now, for a page to show it).
  const eager = options.resume !== undefined || options.continue === true || options.view === true;
  const session = eager ? await openSession(options, cwd, base.run.model, null) : undefined;
  const pages = await livePages(options, cwd, session);
  const state = new Repl(base, { input, spinner, pages, gates, ended: () => signals.exitCode }, session);
  const interrupt = () => state.interrupt();
  input.rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  const signals = onEndSignals(['SIGTERM', 'SIGHUP'], () => state.end());
  stderr.write(colors.dim(`agentloop ${version} · model ${base.run.model} · ${cwd}\n/help lists the commands; /exit or Ctrl-D quits.\n`));
  try {
    await state.run();
  } finally {
    process.off('SIGINT', interrupt);
    signals.stop();
    spinner.stop();
    input.close();
    state.session?.recorder?.close();
    await pages?.close();
  }
  return signals.exitCode;
}

type Pages = Awaited<ReturnType<Awaited<ReturnType<typeof loadPages>>['startLivePages']>>;

/** The pages of --view or --inspect, started before the first question. */
async function livePages(options: CliOptions, cwd: string, session: PreparedSession | undefined): Promise<Pages | undefined> {
  if (!options.view && !options.inspect) return undefined;
  const shown = { id: session?.id ?? '', recorded: session?.recorder !== undefined };
  return (await loadPages()).startLivePages(options, shown, { env, cwd, stdout, stderr });
}

/** What the REPL works with: the input, the thinking line, the pages, and whether a signal ended it (its exit code). */
interface ReplParts {
  input: ReplInput;
  spinner: Spinner;
  pages: Pages | undefined;
  /** The gate of the next run (a rule allowed for the session makes a new one), and whether it asks in the terminal. */
  gates: ReplGates;
  ended: () => number;
}

/** The REPL's state across questions: the session, its history, the last run and the cost so far. */
class Repl {
  sessionOptions: CliOptions;
  setup: SessionSetup | undefined; // the session's tools, made once per session
  messages: MessageParam[];
  last: LastRun | undefined;
  cost: SessionCost;
  running: AbortController | undefined;
  armedQuit = false;

  constructor(
    readonly base: RunSetup,
    readonly parts: ReplParts,
    public session: PreparedSession | undefined,
  ) {
    this.sessionOptions = base.options;
    this.messages = session?.messages ?? [];
    this.cost = noCost(base.run.model);
  }

  get options(): CliOptions {
    return this.base.options;
  }

  /** Ctrl-C: aborts the run under way; at the prompt, discards the line and asks for a second one to quit. */
  interrupt(): void {
    const { input } = this.parts;
    if (this.running) return this.running.abort();
    if (this.armedQuit) return input.close();
    this.armedQuit = true;
    input.discard();
    stderr.write('\n(press Ctrl-C again to quit)\n');
    input.prompt();
  }

  /** A signal that ends the REPL: the run is aborted, the input closed. */
  end(): void {
    this.running?.abort();
    this.parts.spinner.stop();
    this.parts.input.close();
  }

  /** Finishes a cut-off turn, asks the question of the command line, then every question typed until the end. */
  async run(): Promise<void> {
    const { input, ended } = this.parts;
    if (this.session?.awaitsModel) {
      stderr.write(colors.dim(`Finishing the interrupted turn of session ${shown(this.session.id)}.\n`));
      await this.askNext(null);
    }
    // `agentloop "q"`: the REPL, asking q first.
    const first = this.options.prompt?.trim();
    if (first && !ended()) {
      stdout.write(`${PROMPT}${shown(first)}\n`);
      await this.askNext(first);
    }
    input.prompt();
    for (;;) {
      const message = await input.next();
      if (message === null || ended()) break;
      if (await this.take(message)) break;
      if (!ended()) input.prompt();
    }
  }

  /** A message typed: a question, a slash command or nothing; `true` when it ends the REPL. */
  async take(message: string): Promise<boolean> {
    const text = message.replace(/^(\s*\n)+/, '').trimEnd();
    if (text.trim() === '') return false; // an empty line sends nothing
    this.armedQuit = false;
    if (text.trim() === 'q' || text.trim() === 'exit') return true; // the old ways out still work
    const slash = parseSlash(text);
    if (slash?.name === 'compact') return compactInRepl(this, slash.instructions, { stdout, stderr }).then(() => false);
    if (slash) return this.command(slash);
    await this.askNext(text);
    return false;
  }

  /** One run of the loop: on a question, or on the history alone (`null`) to finish a cut-off turn. */
  async askNext(question: string | null): Promise<void> {
    const { spinner, ended } = this.parts;
    // From the question on, a Ctrl-C aborts this run (not "press again to quit"), also while its session opens.
    const running = (this.running = new AbortController());
    if (ended()) running.abort();
    try {
      const session = (this.session ??= await openSession(this.sessionOptions, this.base.cwd, this.base.run.model, question));
      if (this.setup?.session !== session) this.setup = await sessionSetup(this.base, session);
      if (question !== null) session.recorder?.prompt(question); // durable now (runAgent's own call is then a no-op)
      await this.runOn(session, this.setup, question, running.signal);
    } finally {
      spinner.stop();
      this.running = undefined;
    }
  }

  /** The run of askNext, once its session and tools are there: shown as it goes, its result kept and summed up. */
  async runOn(session: PreparedSession, setup: SessionSetup, question: string | null, signal: AbortSignal): Promise<void> {
    const { spinner, pages } = this.parts;
    const printer = replPrinter(spinner, !this.parts.gates.asks, toolLookup(setup.tools));
    const resumeAt = session.turnCount;
    session.turnCount = undefined; // only the first run after a resume goes on counting
    const turnSetup = withRun(setup, { permissions: this.parts.gates.gate, ...(pages?.inspect ? { inspect: pages.inspect } : {}) });
    const result = await ask(turnSetup, question, this.messages, { signal, onEvent: printer.onEvent, turnCount: resumeAt });
    this.answered(result);
    await printer.finish(result);
  }

  /** A run's result kept: the history, the last run (for /state) and the cost (for /cost). */
  answered(result: RunResult): void {
    const { context } = result;
    this.messages = context.messages;
    this.last = { state: result.state, context };
    const cost = this.cost;
    const modelCalls = cost.modelCalls + context.turnUsage.length;
    this.cost = { ...cost, runs: cost.runs + 1, modelCalls, usage: addUsage(cost.usage, context.usage), costUsd: cost.costUsd + context.costUsd };
  }

  /** Runs a slash command; `true` when it ends the REPL. */
  command(slash: SlashCommand): boolean {
    switch (slash.name) {
      case 'exit':
        return true;
      case 'help':
        stdout.write(`${helpText()}\n`);
        break;
      case 'cost':
        stdout.write(`${shown(costText(this.cost, this.session?.id))}\n`);
        break;
      case 'state':
        stdout.write(`${shown(stateText(this.last, this.messages, stdout.columns ?? 80))}\n`);
        break;
      case 'clear':
        this.clear();
        break;
      case 'permissions':
        stdout.write(`${shown(permissionsText(this.parts.gates.gate))}\n`);
        break;
      case 'unknown':
        stderr.write(`${shown(unknownText(slash.text))}\n`);
        break;
    }
    return false;
  }

  /** `/clear`: the next question starts a new session; the old one stays saved. */
  clear(): void {
    const old = this.session?.id;
    this.session?.recorder?.close();
    this.session = undefined;
    this.sessionOptions = newSessionOptions(this.options);
    this.messages = [];
    this.last = undefined;
    this.cost = noCost(this.base.run.model);
    const saved = old ? `; session ${old} stays saved (${selfCommand()} --resume ${old.slice(0, 8)})` : '';
    stdout.write(`New session: the next question starts it${shown(saved)}.\n`);
    if (this.parts.pages) stderr.write(colors.dim('The page goes on showing the session it opened with.\n'));
  }
}
