/**
 * `--input-format stream-json` (with -p and `--output-format stream-json`), as Claude Code reads it: user messages
 * arrive as JSON lines on stdin, `{"type":"user","message":{"role":"user","content":"..." or [blocks]}}`, and each is
 * a turn of the same session in this one process, answered with its stream-json lines and a result line. A line that
 * is not such a message, or that would make the history invalid, is answered with a `system`/`input_error` line (and
 * one line on stderr) and skipped: the session goes on with the next. Control lines (the Claude Agent SDK's protocol:
 * ./control/) are answered at once, also while a turn runs: stdin is read all along, the messages queue up. The end
 * of stdin ends the process, with the exit code of the last turn.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { MessageParam } from '../core/messages.js';
import { appendUser, appendUserText, textOf } from '../history/messages.js';
import { historyProblems } from '../history/validate.js';
import type { Question } from '../transcript/records.js';
import { arrayOf, block } from '../transcript/shapes.js';
import type { CliOptions } from './args.js';
import { exitCodeOf, palette, toJsonResult } from './output.js';
import type { PermissionGate } from './permissions.js';
import { openSession, refusalWarner, type ModelChoice } from './start.js';
import { ask, conversationOf } from './ask.js';
import { onEndSignals } from './signals.js';
import { jsonLine, shown } from './terminal.js';
import type { RunEvent } from '../core/events.js';
import type { RunResult } from '../run/runAgent.js';
import { apiErrorLine } from './claudeLines.js';
import { initFacts, runMeter, streamJsonPrinter } from './streamJson.js';
import { parseControlLine } from './control/channel.js';
import { promptHooks, stopHooks } from './control/hooks.js';
import { ControlSession } from './control/session.js';

/** A line of stdin read: the question of a turn, or why it is not one. */
export type InputLine = { question: Question } | { error: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const EXPECTED = 'expected {"type":"user","message":{"role":"user","content":"..."}}';

/** Reads one line of `--input-format stream-json`. */
export function parseInputLine(text: string): InputLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (!isObject(value)) return { error: `not a JSON object: ${EXPECTED}` };
  if (value.type !== 'user') {
    return { error: `a message of type ${JSON.stringify(value.type) ?? 'undefined'} is not read here: ${EXPECTED}` };
  }
  const message = value.message;
  if (!isObject(message)) return { error: `no "message" object: ${EXPECTED}` };
  if (message.role !== 'user') return { error: `message.role must be "user", not ${JSON.stringify(message.role) ?? 'undefined'}` };
  const content = message.content;
  if (typeof content === 'string') return content.trim() === '' ? { error: 'message.content is empty' } : { question: content };
  if (!Array.isArray(content)) return { error: 'message.content must be a string or an array of content blocks' };
  if (content.length === 0) return { error: 'message.content has no blocks' };
  const problem = arrayOf(block)(content, Number.MAX_SAFE_INTEGER);
  if (problem !== undefined) return { error: `message.content${problem}` };
  return { question: content as Question & unknown[] };
}

/** The history with `question` as its next user message. */
function withQuestion(messages: readonly MessageParam[], question: Question): MessageParam[] {
  return typeof question === 'string' ? appendUserText(messages, question) : appendUser(messages, question);
}

export interface StreamInputIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/**
 * A turn's stream-json lines (its own `system`/`init` line first, as Claude Code starts each turn of a streamed input),
 * and its result line.
 */
function turnOutput(
  options: CliOptions,
  cwd: string,
  choice: ModelChoice,
  sessionId: string,
  version: string,
  write: (line: string) => void,
  gate: PermissionGate | undefined,
) {
  const meter = runMeter();
  const denied = gate?.denials.length ?? 0; // the gate keeps the denials of every turn: this turn's come after
  const facts = initFacts(options, cwd, choice, sessionId, version);
  const print = streamJsonPrinter({ ...facts, ...(gate ? { permissionMode: gate.mode } : {}) }, write, options);
  const warn = refusalWarner();
  return {
    onEvent(event: RunEvent) {
      meter.onEvent(event);
      warn(event);
      print(event);
    },
    finish(result: RunResult) {
      const failed = apiErrorLine(result, sessionId);
      if (failed) write(jsonLine(failed));
      write(jsonLine(toJsonResult(result, { ...meter.facts(), permissionDenials: gate?.denials.slice(denied) ?? [] })));
    },
    /** A turn a UserPromptSubmit hook blocked: no model call, an error result saying why. */
    blocked(reason: string) {
      const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
      const line = { type: 'result', subtype: 'error_during_execution', is_error: true, duration_ms: 0, duration_api_ms: 0, num_turns: 0, result: '', session_id: sessionId };
      const rest = { total_cost_usd: 0, usage, modelUsage: {}, permission_denials: [], uuid: randomUUID(), stop_reason: null, api_error_status: null };
      const claude = { terminal_reason: 'hook_stopped', fast_mode_state: 'off', exit_reason: null, errors: [`The prompt was blocked by a UserPromptSubmit hook: ${reason}`] };
      write(jsonLine({ ...line, ...rest, ...claude }));
    },
  };
}

/** The text of a question (a UserPromptSubmit hook's `prompt`). */
const promptText = (question: Question) => (typeof question === 'string' ? question : textOf(question as MessageParam['content']));

/** The question with the context hooks added, as a text block after it. */
function withContext(question: Question, context: string[]): Question {
  const blocks = typeof question === 'string' ? [{ type: 'text' as const, text: question }] : question;
  return [...blocks, { type: 'text' as const, text: context.join('\n\n') }] as Question;
}

/** Runs a turn for every user message on stdin, until it ends; returns the exit code. */
export async function streamInput(
  options: CliOptions,
  cwd: string,
  choice: ModelChoice,
  version: string,
  io: StreamInputIo,
  gate?: PermissionGate,
): Promise<number> {
  const colors = palette(io.stderr, io.env);
  const refuse = (why: string) => {
    io.stderr.write(`agentloop: ${why}\nsee agentloop --help\n`);
    return 2;
  };
  if (options.prompt !== undefined) return refuse('--input-format stream-json reads the prompts from stdin: give none as an argument');
  if (options.view || options.inspect) return refuse('--view and --inspect do not go with --input-format stream-json');

  const session = await openSession(options, cwd, choice.model, null);
  const write = (line: string) => io.stdout.write(line);
  let running: AbortController | undefined;
  let interrupted = false;
  const control = new ControlSession({
    write,
    warn: (line) => io.stderr.write(`${colors.dim(shown(line))}\n`),
    sessionId: session.id,
    cwd,
    transcriptPath: session.recorder?.path ?? '',
    model: choice.model,
    gate,
    askHost: options.permissionPromptTool === 'stdio',
    interrupt: () => {
      interrupted = running !== undefined;
      running?.abort();
    },
  });
  const input = readInput(io, control, (number, why) => {
    io.stderr.write(`${colors.red(`agentloop: stdin line ${number}: ${shown(why)}: skipped, the session goes on`)}\n`);
    write(jsonLine({ type: 'system', subtype: 'input_error', line: number, error: why, session_id: session.id }));
  });
  const signals = onEndSignals(['SIGINT', 'SIGTERM', 'SIGHUP'], () => {
    running?.abort();
    input.close();
  });
  const conversation = await conversationOf(options, cwd, choice, session);
  let messages = session.messages;
  let resumeAt = session.turnCount; // only the first turn goes on counting from a resumed session
  let exitCode: number | undefined;
  try {
    for (let next = await input.next(); next !== undefined; next = await input.next()) {
      await control.ready;
      const problems = historyProblems(withQuestion(messages, next.question));
      if (problems.length > 0) {
        input.reject(next.number, `the message would make the conversation invalid: ${problems.join('; ')}`);
        continue;
      }
      running = new AbortController();
      interrupted = false;
      if (signals.exitCode) running.abort();
      const turnChoice = control.choiceOf(choice);
      const output = turnOutput(options, cwd, turnChoice, session.id, version, write, gate);
      const run = (question: Question, history: MessageParam[], turnCount: number | undefined) =>
        ask(conversation, question, history, { choice: turnChoice, signal: (running as AbortController).signal, onEvent: output.onEvent, turnCount, extra: systemOf(control) });
      const result = await runTurn(control, next.question, messages, resumeAt, run, (q) => session.recorder?.prompt(q));
      running = undefined;
      resumeAt = undefined;
      if ('blocked' in result) {
        output.blocked(result.blocked);
        exitCode = 1;
        continue;
      }
      messages = result.context.messages;
      if (interrupted && result.context.exitReason === 'aborted') control.interrupted(messages);
      output.finish(result);
      // An interrupt the host asked for is no failure of the session.
      exitCode = interrupted ? 0 : exitCodeOf(result);
      if (signals.exitCode) break;
    }
  } finally {
    input.close();
    control.channel.close();
    signals.stop();
    session.recorder?.close();
  }
  // No turn ran: an empty stdin is no error; only bad lines are.
  return signals.exitCode || (exitCode ?? (input.badLines() > 0 ? 1 : 0));
}

/** The system prompt an initialize request set (over the flags'). */
function systemOf(control: ControlSession) {
  const { system, appendSystemPrompt } = control.setup;
  return { ...(system !== undefined ? { system } : {}), ...(appendSystemPrompt !== undefined ? { appendSystemPrompt } : {}) };
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

/** A user message read from stdin, with its line number. */
type Queued = { number: number; question: Question };

/**
 * Reads stdin all along: control lines go to `control` at once, user messages queue up for `next()`, and a bad line is
 * reported through `report` (a bad control line only on stderr: the SDK would hand an input_error line to the program).
 */
function readInput(io: StreamInputIo, control: ControlSession, report: (number: number, why: string) => void) {
  const queue: Queued[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  let number = 0;
  let badLines = 0;
  const reject = (line: number, why: string) => {
    badLines += 1;
    report(line, why);
  };
  const lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
  lines.on('line', (text) => {
    number += 1;
    if (text.trim() === '') return;
    const controlLine = parseControlLine(text);
    if (controlLine !== undefined && 'error' in controlLine) {
      if (controlLine.requestId !== undefined) control.channel.refuse(controlLine.requestId, controlLine.error);
      else io.stderr.write(`agentloop: stdin line ${number}: ${controlLine.error}: skipped\n`);
      return;
    }
    if (controlLine !== undefined) return control.handle(controlLine);
    const line = parseInputLine(text);
    if ('error' in line) return reject(number, line.error);
    queue.push({ number, question: line.question });
    wake?.();
  });
  lines.on('close', () => {
    ended = true;
    control.channel.close(); // no answer to a question of ours can come any more
    wake?.();
  });
  return {
    /** The next user message, or undefined once stdin has ended and none is left. */
    async next(): Promise<Queued | undefined> {
      while (queue.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
      return queue.shift();
    },
    reject,
    badLines: () => badLines,
    close: () => lines.close(),
  };
}
