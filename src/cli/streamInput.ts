/**
 * `--input-format stream-json` (with -p and `--output-format stream-json`), as Claude Code reads it: user messages
 * arrive as JSON lines on stdin, `{"type":"user","message":{"role":"user","content":"..." or [blocks]}}`, and each is
 * a turn of the same session in this one process, answered with its stream-json lines and a result line. A line that
 * is not such a message, or that would make the history invalid, is answered with a `system`/`input_error` line (and
 * one line on stderr) and skipped: the session goes on with the next. The end of stdin ends the process, with the
 * exit code of the last turn.
 */
import { createInterface } from 'node:readline';
import type { MessageParam } from '../core/messages.js';
import { appendUser, appendUserText } from '../history/messages.js';
import { historyProblems } from '../history/validate.js';
import type { Question } from '../transcript/records.js';
import { arrayOf, block } from '../transcript/shapes.js';
import type { CliOptions } from './args.js';
import { exitCodeOf, palette } from './output.js';
import type { PermissionGate } from './permissions.js';
import { limitsOf, openSession, refusalWarner, type ModelChoice } from './start.js';
import { onEndSignals } from './signals.js';
import type { RunEvent } from '../core/events.js';
import type { RunResult } from '../run/runAgent.js';
import { toJsonResult } from './output.js';
import { initFacts, runMeter, streamJsonPrinter } from './streamJson.js';

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
  const print = streamJsonPrinter(initFacts(options, cwd, choice, sessionId, version), write);
  const warn = refusalWarner();
  return {
    onEvent(event: RunEvent) {
      meter.onEvent(event);
      warn(event);
      print(event);
    },
    finish(result: RunResult) {
      write(`${JSON.stringify(toJsonResult(result, { ...meter.facts(), permissionDenials: gate?.denials.slice(denied) ?? [] }))}\n`);
    },
  };
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
  const { runAgent } = await import('../run/runAgent.js');
  let messages = session.messages;
  let resumeAt = session.turnCount; // only the first turn goes on counting from a resumed session
  let running: AbortController | undefined;
  const lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
  const signals = onEndSignals(['SIGINT', 'SIGTERM', 'SIGHUP'], () => {
    running?.abort();
    lines.close();
  });
  const write = (line: string) => io.stdout.write(line);
  let exitCode: number | undefined;
  let badLines = 0;
  let number = 0;

  const reject = (why: string) => {
    badLines += 1;
    io.stderr.write(`${colors.red(`agentloop: stdin line ${number}: ${why}: skipped, the session goes on`)}\n`);
    write(`${JSON.stringify({ type: 'system', subtype: 'input_error', line: number, error: why, session_id: session.id })}\n`);
  };

  try {
    for await (const text of lines) {
      number += 1;
      if (text.trim() === '') continue;
      const line = parseInputLine(text);
      if ('error' in line) {
        reject(line.error);
        continue;
      }
      const problems = historyProblems(withQuestion(messages, line.question));
      if (problems.length > 0) {
        reject(`the message would make the conversation invalid: ${problems.join('; ')}`);
        continue;
      }
      session.recorder?.prompt(line.question); // durable before the turn starts
      running = new AbortController();
      if (signals.exitCode) running.abort();
      const output = turnOutput(options, cwd, choice, session.id, version, write, gate);
      const result = await runAgent(line.question, {
        ...choice,
        cwd,
        signal: running.signal,
        sessionId: session.id,
        messages,
        ...(resumeAt !== undefined ? { turnCount: resumeAt } : {}),
        onEvent: output.onEvent,
        ...(session.recorder ? { session: session.recorder } : {}),
        ...(options.includePartialMessages ? { includeStreamEvents: true } : {}),
        ...limitsOf(options, resumeAt, session.outputDir),
      });
      running = undefined;
      resumeAt = undefined;
      messages = result.context.messages;
      output.finish(result);
      exitCode = exitCodeOf(result);
      if (signals.exitCode) break;
    }
  } finally {
    lines.close();
    signals.stop();
    session.recorder?.close();
  }
  // No turn ran: an empty stdin is no error; only bad lines are.
  return signals.exitCode || (exitCode ?? (badLines > 0 ? 1 : 0));
}
