/**
 * The lines of stdin under `--input-format stream-json` (./streamInput.ts): a user message is the question of a turn,
 * a control line goes to the control session at once, anything else is a bad line, reported and skipped.
 */
import type { Question } from '../../transcript/records.js';
import { arrayOf, block } from '../../transcript/shapes.js';
import { parseControlLine } from './channel.js';
import type { ControlSession } from './session.js';
import { StdinLines, tooLarge, type StdinLine } from '../setup/stdinLines.js';

/** A line of stdin read: the question of a turn, or why it is not one. */
export type InputLine = { question: Question; uuid?: string } | { error: string };

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
  const uuid = typeof value.uuid === 'string' ? { uuid: value.uuid } : {}; // the host's own id of the line (replayed)
  if (typeof content === 'string') return content.trim() === '' ? { error: 'message.content is empty' } : { question: content, ...uuid };
  if (!Array.isArray(content)) return { error: 'message.content must be a string or an array of content blocks' };
  if (content.length === 0) return { error: 'message.content has no blocks' };
  const problem = arrayOf(block)(content, Number.MAX_SAFE_INTEGER);
  if (problem !== undefined) return { error: `message.content${problem}` };
  return { question: content as Question & unknown[], ...uuid };
}

export interface StreamInputIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** A user message read from stdin, with its line number. */
export type Queued = { number: number; question: Question };

/**
 * Reads stdin all along: control lines go to `control` at once, user messages queue up for `next()`, and a bad line is
 * reported through `report` (a bad control line only on stderr: the SDK would hand an input_error line to the program).
 */
export function readInput(io: StreamInputIo, control: ControlSession, report: (number: number, why: string) => void, onQuestion?: (question: Question, uuid?: string) => void) {
  const queue: Queued[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  let number = 0;
  let badLines = 0;
  const reject = (line: number, why: string) => {
    badLines += 1;
    report(line, why);
  };
  // Each line held up to its bound (../setup/stdinLines.ts): a longer one is refused by its size, and the stream goes on.
  const splitter = new StdinLines();
  const onLine = (read: StdinLine) => {
    number += 1;
    if ('oversized' in read) return reject(number, `${tooLarge('the line', read.oversized)}: give a large input as a file the agent reads`);
    const text = read.text;
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
    onQuestion?.(line.question, line.uuid); // --replay-user-messages (../printers/replayLines.ts)
    queue.push({ number, question: line.question });
    wake?.();
  };
  let closed = false;
  const onData = (chunk: Buffer | string) => splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, onLine);
  const onClose = () => {
    if (closed) return;
    closed = true;
    io.stdin.off('data', onData);
    splitter.end(onLine);
    ended = true;
    control.inputEnded(); // no answer to a question of ours can come any more, nor an initialize request
    wake?.();
  };
  io.stdin.on('data', onData);
  io.stdin.once('end', onClose);
  io.stdin.once('close', onClose);
  io.stdin.once('error', onClose);
  return {
    /** The next user message, or undefined once stdin has ended and none is left. */
    async next(): Promise<Queued | undefined> {
      while (queue.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
      return queue.shift();
    },
    reject,
    badLines: () => badLines,
    close: () => {
      io.stdin.pause();
      onClose();
    },
  };
}

/** What reads stdin for a stream-json session. */
export type InputReader = ReturnType<typeof readInput>;
