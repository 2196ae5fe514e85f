/**
 * `--input-format stream-json` (with -p and `--output-format stream-json`), as Claude Code reads it: user messages
 * arrive as JSON lines on stdin, `{"type":"user","message":{"role":"user","content":"..." or [blocks]}}`, and each is
 * a turn of the same session in this one process, answered with its stream-json lines and a result line. A line that
 * is not such a message, or that would make the history invalid, is answered with a `system`/`input_error` line (and
 * one line on stderr) and skipped: the session goes on with the next. Control lines (the Claude Agent SDK's protocol:
 * ./control/) are answered at once, also while a turn runs: stdin is read all along, the messages queue up. The end
 * of stdin ends the process, with the exit code of the last turn.
 */
import type { MessageParam } from '../../core/messages.js';
import { appendUserContent, textOf } from '../../history/messages.js';
import { compactCommand } from '../setup/compactCommand.js';
import { compactTurn } from './compactTurn.js';
import { historyProblems } from '../../history/validate.js';
import type { Question } from '../../transcript/records.js';
import type { CliOptions } from '../commandLine/args.js';
import { exitCodeOf, palette } from '../printers/output.js';
import type { PermissionGate } from '../../permissions/gate.js';
import { openSession } from '../setup/start.js';
import { ask, sessionSetup } from '../setup/ask.js';
import { withRun, type RunSetup, type SessionSetup } from '../setup/runSetup.js';
import { sessionAgents, withAgents, type AgentDefinitions } from '../setup/agents.js';
import { onEndSignals, onParentGone, type EndSignals } from '../setup/signals.js';
import type { PreparedSession } from '../setup/session.js';
import { readInput, type InputReader, type StreamInputIo } from './streamInputLines.js';
import { replayingWriter } from '../printers/replayLines.js';
import { jsonLine, shown } from '../printers/terminal.js';
import type { RunResult } from '../../run/runAgent.js';
import { streamJsonTurnPrinter } from '../printers/streamJsonTurn.js';
import { promptHooks, stopHooks } from './hooks.js';
import { ControlSession } from './session.js';
import { setupOptions } from './initialize.js';
import type { SessionMcp } from '../setup/sessionMcp.js';
import { selfCommand } from '../commandLine/self.js';
import { maxAttempts, StructuredTurn } from '../setup/structuredOutput.js';
import { thinkingOfTurn } from './thinking.js';

/** The text of a question (a UserPromptSubmit hook's `prompt`). */
const promptText = (question: Question) => (typeof question === 'string' ? question : textOf(question as MessageParam['content']));

/** The question with the context hooks added, as a text block after it. */
function withContext(question: Question, context: string[]): Question {
  const blocks = typeof question === 'string' ? [{ type: 'text' as const, text: question }] : question;
  return [...blocks, { type: 'text' as const, text: context.join('\n\n') }] as Question;
}

/** Why the flags do not go with `--input-format stream-json`, if they do not. */
function refusalOf(options: CliOptions): string | undefined {
  if (options.prompt !== undefined) return '--input-format stream-json reads the prompts from stdin: give none as an argument';
  if (options.view || options.inspect) return '--view and --inspect do not go with --input-format stream-json';
  return undefined;
}

/** The turn under way (what an interrupt or a signal aborts), whether the host interrupted it, whether the host is gone. */
interface Turn {
  running?: AbortController;
  interrupted: boolean;
  hostGone?: boolean;
}

/** What every turn of a stream-json session shares. */
interface Stream {
  /** The session's setup (its flags, its tools, runAgent's options before a control request changes them). */
  setup: SessionSetup;
  write: (line: string) => void;
  session: PreparedSession;
  control: ControlSession;
  input: InputReader;
  signals: EndSignals;
  turn: Turn;
}

/** Runs a turn for every user message on stdin, until it ends; returns the exit code. */
export async function streamInput(base: RunSetup, io: StreamInputIo, gate: PermissionGate, mcp?: SessionMcp): Promise<number> {
  const { options, cwd } = base;
  const refusal = refusalOf(options);
  if (refusal !== undefined) {
    io.stderr.write(`agentloop: ${refusal}\nsee ${selfCommand()} --help\n`);
    return 2;
  }
  const session = await openSession(options, cwd, base.run.model, null);
  const { write, replay } = replayingWriter(io.stdout, session.id, options.replayUserMessages);
  const turn: Turn = { interrupted: false };
  const bypassAvailable = options.permissionMode === 'bypassPermissions' || options.allowDangerouslySkipPermissions === true;
  const control = controlOf(io, session, cwd, base.run.model, gate, { askHost: options.permissionPromptTool === 'stdio', bypassAvailable, agents: sessionAgents(options, cwd) }, turn, mcp, options.awaitInitialize === true);
  control.thinkingFlags = options;
  const input = readInput(io, control, inputErrorReporter(io, write, session.id), replay);
  const signals = onEndSignals(['SIGINT', 'SIGTERM', 'SIGHUP'], () => {
    turn.running?.abort();
    input.close();
  });
  // A host of the control protocol (an Agent SDK program) that dies takes the session with it: the turn under way is
  // aborted (its tools and MCP calls stopped), the servers stop, the process ends. A plain pipe's writer may go first.
  const host = onParentGone(() => {
    if (!control.used) return;
    turn.hostGone = true;
    turn.running?.abort();
    input.close();
  });
  const stream: Stream = { setup: await sessionSetup(base, session), write, session, control, input, signals, turn };
  let exitCode: number | undefined;
  try {
    exitCode = await answerAll(stream);
  } finally {
    input.close();
    control.channel.close();
    signals.stop();
    host.stop();
    session.recorder?.close();
  }
  // No turn ran: an empty stdin is no error; only bad lines are.
  return signals.exitCode || (exitCode ?? (input.badLines() > 0 ? 1 : 0));
}

/** The control session of the Claude Agent SDK's protocol: its interrupt aborts the turn under way. */
function controlOf(
  io: StreamInputIo,
  session: PreparedSession,
  cwd: string,
  model: string,
  gate: PermissionGate,
  flags: { askHost: boolean; bypassAvailable: boolean; agents: AgentDefinitions | undefined },
  turn: Turn,
  mcp?: SessionMcp,
  awaitInitialize = false,
) {
  const colors = palette(io.stderr, io.env);
  return new ControlSession({
    write: (line) => io.stdout.write(line),
    warn: (line) => io.stderr.write(`${colors.dim(shown(line))}\n`),
    sessionId: session.id,
    cwd,
    transcriptPath: session.recorder?.path ?? '',
    model,
    gate,
    ...flags,
    ...(mcp ? { mcp } : {}),
    awaitInitialize,
    interrupt: () => {
      turn.interrupted = turn.running !== undefined;
      turn.running?.abort();
    },
  });
}

/** A bad stdin line: one line on stderr, and a `system`/`input_error` line for the host. */
function inputErrorReporter(io: StreamInputIo, write: (line: string) => void, sessionId: string) {
  const colors = palette(io.stderr, io.env);
  return (number: number, why: string) => {
    io.stderr.write(`${colors.red(`agentloop: stdin line ${number}: ${shown(why)}: skipped, the session goes on`)}\n`);
    write(jsonLine({ type: 'system', subtype: 'input_error', line: number, error: why, session_id: sessionId }));
  };
}

/** Answers every user message on stdin in turn; the exit code of the last turn, undefined if none ran. */
async function answerAll(stream: Stream): Promise<number | undefined> {
  const { control, input, signals } = stream;
  let messages = stream.session.messages;
  let resumeAt = stream.session.turnCount; // only the first turn goes on counting from a resumed session
  let exitCode: number | undefined;
  for (let next = await input.next(); next !== undefined && !stream.turn.hostGone; next = await input.next()) {
    await control.beforeTurn();
    if (control.missingInitialize) return noInitialize(stream);
    const instructions = compactCommand(next.question); // `/compact [instructions]`: Claude Code's lines, no model turn
    if (instructions !== undefined && messages.length > 0) { messages = await compactTurn(stream, instructions, messages); continue; }
    const problems = historyProblems(appendUserContent(messages, next.question));
    if (problems.length > 0) {
      input.reject(next.number, `the message would make the conversation invalid: ${problems.join('; ')}`);
      continue;
    }
    const answered = await answer(stream, next.question, messages, resumeAt);
    resumeAt = undefined;
    exitCode = answered.exitCode;
    messages = answered.messages ?? messages;
    if (signals.exitCode) break;
  }
  return exitCode;
}

/** --await-initialize, and stdin ended before the initialize request came: no turn runs. */
function noInitialize(stream: Stream): number {
  stream.control.warn('agentloop: stdin ended before the initialize request that --await-initialize waits for: no turn ran');
  return 1;
}

/** One user message answered: its stream-json lines and result line written; the history after it and its exit code. */
async function answer(stream: Stream, question: Question, messages: MessageParam[], resumeAt: number | undefined) {
  const { control, turn, session } = stream;
  const running = new AbortController();
  turn.running = running;
  turn.interrupted = false;
  if (stream.signals.exitCode) running.abort();
  const { options } = stream.setup;
  const schema = control.setup.jsonSchema ?? options.jsonSchema;
  const structured = schema ? new StructuredTurn(schema, maxAttempts(process.env)) : undefined;
  // This turn's setup: what set_model, initialize (its prompts, hooks, servers, agents) and thinking changed.
  const controlled = withRun(control.setupOf(stream.setup), { ...setupOptions(control.setup), ...thinkingOfTurn(options, control.thinking) });
  const setup = structured ? structured.setup(controlled) : controlled;
  const signal = structured ? structured.signal(running.signal) : running.signal;
  const output = streamJsonTurnPrinter(withAgents(setup, control.setup.agents), stream.write, control.gate.mode, control.hookDenials);
  const once = (q: Question | null, history: MessageParam[], turnCount: number | undefined) => ask(setup, q, history, { signal, onEvent: output.onEvent, turnCount });
  const run = structured ? structured.around(once, (text) => output.remind?.(text)) : once;
  const result = await runTurn(control, question, messages, resumeAt, run, (q) => session.recorder?.prompt(q));
  turn.running = undefined;
  if ('blocked' in result) {
    output.blocked(result.blocked);
    return { exitCode: 1, messages: undefined };
  }
  if (turn.interrupted && result.context.exitReason === 'aborted') control.interrupted(result.context.messages);
  output.finish(result, structured?.outcome());
  // An interrupt the host asked for is no failure of the session.
  return { exitCode: turn.interrupted ? 0 : exitCodeOf(result), messages: result.context.messages };
}

type Run = (question: Question, history: MessageParam[], turnCount: number | undefined) => Promise<RunResult>;

/**
 * One turn: the host's UserPromptSubmit hooks may block the prompt or add context to it; the run; then, as long as
 * a Stop hook asks to go on (`decision: "block"`), its reason is the next user message of the same turn.
 */
async function runTurn(control: ControlSession, question: Question, messages: MessageParam[], resumeAt: number | undefined, run: Run, record: (q: Question) => void) {
  const context = control.hookContext();
  if (control.hasHooks('UserPromptSubmit')) {
    const verdict = await promptHooks(context, promptText(question));
    if (verdict.block !== undefined) return { blocked: verdict.block };
    if (verdict.context.length > 0) question = withContext(question, verdict.context);
  }
  record(question); // durable before the turn starts
  let result = await run(question, messages, resumeAt);
  for (let active = false; control.hasHooks('Stop') && result.context.exitReason === 'completed'; active = true) {
    const reason = await stopHooks(context, result.text, active);
    if (reason === undefined) break;
    result = await run(reason, result.context.messages, result.context.turnCount + 1);
  }
  return result;
}

