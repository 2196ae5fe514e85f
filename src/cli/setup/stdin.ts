/**
 * Piped stdin for a `-p` run, as Claude Code reads it: `echo "q" | agentloop -p` makes it the prompt,
 * `git diff | agentloop -p "review this"` adds it after the prompt as context. A terminal is never read.
 *
 * A pipe that a caller opened and never writes to nor closes (a program spawning agentloop with the default
 * stdio) must not hang a run that has its prompt already: then stdin gets a grace period to start (the first
 * byte or its end); once it has started it is read to its end, however long that takes, up to MAX_STDIN_BYTES
 * (./stdinLines.ts): more is refused in one line, without holding more than that.
 */
import { fstatSync, readSync } from 'node:fs';
import { MAX_STDIN_BYTES, tooLarge } from './stdinLines.js';

export interface StdinSource {
  /** The stream on fd 0 (process.stdin). */
  stream: NodeJS.ReadStream;
  /** fd 0's kind; default: fstat of fd 0. */
  kind?: 'tty' | 'file' | 'pipe' | 'none';
}

export interface PipedInput {
  /** The text, or `undefined` when there is none (a terminal, nothing piped, only white space, or too late). */
  text: string | undefined;
  /** Set when stdin did not start within the grace period: what was done, for stderr. */
  note?: string;
  /** Set when stdin is over the bound: why the run cannot start, one line. */
  error?: string;
}

const TOO_LARGE = `${tooLarge('stdin')}: give a large input as a file the agent reads (-p "read input.txt")`;

/** What a file (or device) on fd 0 holds, read up to the bound: undefined when it holds more. */
function readBoundedFd(fd: number): string | undefined {
  const buffer = Buffer.alloc(Math.min(MAX_STDIN_BYTES + 1, Math.max(64 * 1024, sizeOf(fd) + 1)));
  let filled = 0;
  let bytes = 0;
  let target = buffer;
  do {
    if (filled === target.length) {
      if (target.length > MAX_STDIN_BYTES) return undefined;
      const grown = Buffer.alloc(Math.min(MAX_STDIN_BYTES + 1, target.length * 2));
      target.copy(grown, 0, 0, filled);
      target = grown;
    }
    bytes = readSync(fd, target, filled, target.length - filled, null);
    filled += bytes;
  } while (bytes > 0);
  return filled > MAX_STDIN_BYTES ? undefined : target.toString('utf8', 0, filled);
}

function sizeOf(fd: number): number {
  try {
    return fstatSync(fd).size;
  } catch {
    return 0;
  }
}

/** How long a pipe gets to start when the prompt is given already. */
export const STDIN_GRACE_MS = 3000;

function kindOf(stream: NodeJS.ReadStream): NonNullable<StdinSource['kind']> {
  if (stream.isTTY) return 'tty';
  try {
    const stat = fstatSync(0);
    if (stat.isFIFO() || stat.isSocket()) return 'pipe';
    return 'file'; // a regular file or a device such as /dev/null: read at once, never blocks for long
  } catch {
    return 'none'; // fd 0 closed
  }
}

/**
 * Reads what is piped on stdin. `graceMs`: how long a pipe may take to start (the prompt is given already);
 * `undefined`: wait for it as long as it takes (stdin is the prompt).
 */
export async function readPipedInput(source: StdinSource, graceMs: number | undefined): Promise<PipedInput> {
  const kind = source.kind ?? kindOf(source.stream);
  if (kind === 'tty' || kind === 'none') return { text: undefined };
  if (kind === 'file') {
    const text = readBoundedFd(0);
    return text === undefined ? { text: undefined, error: TOO_LARGE } : { text: meaningful(text) };
  }
  const stream = source.stream;
  return new Promise<PipedInput>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: PipedInput) => {
      clearTimeout(timer);
      stream.off('data', onData).off('end', onEnd).off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer | string) => {
      clearTimeout(timer); // it has started: read it to its end
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      bytes += buffer.length;
      chunks.push(buffer);
      if (bytes <= MAX_STDIN_BYTES) return;
      chunks.length = 0;
      stream.pause();
      stream.destroy(); // nothing more is read: the rest is not held
      finish({ text: undefined, error: TOO_LARGE });
    };
    const onEnd = () => finish({ text: meaningful(Buffer.concat(chunks).toString('utf8')) });
    const onError = (error: Error) => {
      clearTimeout(timer);
      reject(new Error(`could not read stdin: ${error.message}`));
    };
    stream.on('data', onData).on('end', onEnd).on('error', onError);
    if (graceMs !== undefined) {
      timer = setTimeout(() => {
        stream.pause();
        stream.destroy(); // nothing more is read from it: the process may exit with the pipe still open
        finish({
          text: undefined,
          note: `agentloop: nothing came on stdin within ${graceMs / 1000} s: going on without it (give < /dev/null to skip the wait)`,
        });
      }, graceMs);
    }
  });
}

function meaningful(text: string): string | undefined {
  return text.trim() === '' ? undefined : text.replace(/\s+$/, '');
}

/** The question a run asks: the prompt, with piped text after it as context (or the piped text alone). */
export function promptWithInput(prompt: string | undefined, piped: string | undefined): string | undefined {
  if (piped === undefined) return prompt;
  if (prompt === undefined) return piped;
  return `${prompt}\n\n<stdin>\n${piped}\n</stdin>`;
}

/**
 * The prompt of a `-p` run with what is piped on stdin: `undefined` when there is neither. Stdin is not read by the
 * REPL, the demo, nor with `--input-format stream-json` (its messages are read elsewhere). The grace period is
 * AGENTLOOP_STDIN_WAIT_MS, default STDIN_GRACE_MS.
 */
export async function runPrompt(
  options: { print: boolean; demo: boolean; prompt?: string; inputFormat?: string; resume?: string; continue?: boolean },
  env: NodeJS.ProcessEnv,
  stream: NodeJS.ReadStream = process.stdin,
): Promise<PipedInput> {
  if (!options.print || options.demo || options.inputFormat === 'stream-json') return { text: options.prompt };
  const optional = options.prompt !== undefined || options.resume !== undefined || options.continue === true;
  const wait = Number(env.AGENTLOOP_STDIN_WAIT_MS);
  const piped = await readPipedInput({ stream }, optional ? (Number.isFinite(wait) && wait >= 0 ? wait : STDIN_GRACE_MS) : undefined);
  if (piped.error) return { text: undefined, error: piped.error };
  return { text: promptWithInput(options.prompt, piped.text), ...(piped.note ? { note: piped.note } : {}) };
}
