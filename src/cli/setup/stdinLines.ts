/**
 * The bound of what agentloop reads on stdin: a line of `--input-format stream-json`, and the whole of a `-p` prompt
 * piped in. The Messages API takes at most 32 MB a request, and a request holds the history, the system prompt and the
 * tools besides the new message: a message of MAX_STDIN_BYTES leaves them 8 MB; a larger one could never be sent.
 * Reading holds at most the bound: past it the rest of the line is counted, not kept (Node's readline held any line
 * whole: 100 MB took 1.4 GB and 38 s, 512 MB threw `RangeError: Invalid string length`).
 */

export const MAX_STDIN_BYTES = 24 * 1024 * 1024;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Why a line (or a prompt) is refused, in one line: its size when known, else that it passed the bound. */
export function tooLarge(what: string, bytes?: number): string {
  const size = bytes === undefined ? `over ${mb(MAX_STDIN_BYTES)}` : `${mb(bytes)}, over the ${mb(MAX_STDIN_BYTES)} agentloop reads`;
  return `${what} is ${size} (the API takes at most 32 MB a request, the history included)`;
}

export type StdinLine = { text: string } | { oversized: number };

/**
 * Splits a byte stream into lines (`\n`, a `\r` before it dropped; a last line without one is a line too), each held
 * up to `bound` bytes; a longer one is reported by its size alone.
 */
export class StdinLines {
  private chunks: Buffer[] = [];
  private size = 0;
  private over = 0;

  constructor(private readonly bound = MAX_STDIN_BYTES) {}

  push(chunk: Buffer, emit: (line: StdinLine) => void): void {
    let rest = chunk;
    while (rest.length > 0) {
      const newline = rest.indexOf(10);
      this.take(newline === -1 ? rest : rest.subarray(0, newline));
      if (newline === -1) return;
      rest = rest.subarray(newline + 1);
      this.endLine(emit);
    }
  }

  /** The stream ended: its last line, when it had no newline. */
  end(emit: (line: StdinLine) => void): void {
    if (this.size > 0 || this.over > 0) this.endLine(emit);
  }

  private take(part: Buffer): void {
    if (this.over > 0) this.over += part.length;
    else if (this.size + part.length > this.bound) {
      this.over = this.size + part.length;
      this.chunks = [];
      this.size = 0;
    } else if (part.length > 0) {
      // A copy: a slice would keep the whole chunk it came from.
      this.chunks.push(Buffer.from(part));
      this.size += part.length;
    }
  }

  private endLine(emit: (line: StdinLine) => void): void {
    const over = this.over;
    const text = over > 0 ? '' : Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    this.over = 0;
    emit(over > 0 ? { oversized: over } : { text });
  }
}
