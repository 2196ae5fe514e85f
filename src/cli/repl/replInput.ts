/**
 * The REPL's input: lines from readline gathered into messages. In a terminal, bracketed paste mode is on, so a
 * paste arrives as one message (sent with the Enter after it); where the terminal does not mark pastes, lines that
 * arrive in one chunk count as a paste. A typed line that ends with `\` goes on on the next line. Off a terminal
 * (piped input) each line is a message, `\` still continuing it. Closing restores the terminal's modes.
 */
import { createInterface, type Interface } from 'node:readline';

export const PROMPT = 'agentloop >> ';
const MORE = '... ';
const PASTE_ON = '\x1b[?2004h';
const PASTE_OFF = '\x1b[?2004l';

export interface ReplInput {
  readonly rl: Interface;
  /** The next message (a question or a command, trailing blank lines cut), or `null` at the end of the input. */
  next(): Promise<string | null>;
  /** Shows the prompt for a new message. */
  prompt(): void;
  /** Drops the message being written (Ctrl-C at the prompt). */
  discard(): void;
  /** Ends the input (`/exit`, a signal); the terminal gets its modes back. */
  close(): void;
  /**
   * Asks the user while a run goes (./replAsk.ts): `prompt` shown, the next line typed is the answer, or, with `keys`
   * in a terminal, one of the keys 1, 2, 3, y, a, n, Esc at once; `null` when the input ends or `signal` aborts. A line
   * typed ahead and not sent yet is put aside meanwhile.
   */
  ask(prompt: string, signal: AbortSignal, keys?: boolean): Promise<string | null>;
}

/** The keys that answer a question at once (./replAsk.ts choiceOf), alone on the line. */
const ANSWER_KEYS = /^[123yan]$/i;

/** Opens the REPL's input on `input` (a terminal or a pipe), echoing and prompting on `output`. */
export function openReplInput(input: NodeJS.ReadStream, output: NodeJS.WriteStream): ReplInput {
  const messages = new Messages(createInterface({ input, output, prompt: PROMPT }), output);
  const { rl, terminal } = messages;
  rl.on('line', (line) => messages.line(line));
  const onKey = (text: string | undefined, key: { name?: string; ctrl?: boolean; meta?: boolean } | undefined) => {
    if (key?.name === 'paste-start') messages.pasting = true;
    if (key?.name === 'paste-end') messages.pasting = false;
    // A question's key, typed alone (readline has put it on the line already): the answer, at once.
    if (messages.asking && !messages.pasting && !key?.ctrl && !key?.meta) {
      if (key?.name === 'escape') messages.answerKey('\x1b');
      else if (text !== undefined && ANSWER_KEYS.test(text) && rl.line === text) messages.answerKey(text);
    }
  };
  const restore = () => output.write(PASTE_OFF); // a terminal's writes are synchronous, also at exit
  if (terminal) {
    input.on('keypress', onKey);
    output.write(PASTE_ON);
    process.once('exit', restore);
  }
  rl.on('close', () => {
    if (terminal) {
      input.off('keypress', onKey);
      process.off('exit', restore);
    }
    messages.ended();
  });
  return messages;
}

/** Lines gathered into messages, and messages handed to whoever waits for the next. */
class Messages implements ReplInput {
  readonly terminal: boolean;
  pasting = false;
  private readonly held: string[] = []; // lines of the message being written
  private readonly ready: string[] = []; // messages not taken yet (typed ahead while a run goes)
  private readonly waiting: ((message: string | null) => void)[] = [];
  private chunk: string[] = []; // lines that arrived in the chunk being read
  private answering: { resolve: (answer: string | null) => void; keys: boolean } | undefined; // a question asked
  private isEnded = false;
  private closing = false;
  // Lines read in the same chunk as a question's key ("3" and Enter typed at once): the ask's next question takes them.
  private afterKey: string[] | undefined;

  constructor(
    readonly rl: Interface,
    private readonly output: NodeJS.WriteStream,
  ) {
    this.terminal = rl.terminal;
  }

  next(): Promise<string | null> {
    const message = this.ready.shift();
    if (message !== undefined) return Promise.resolve(message);
    if (this.isEnded) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  prompt(): void {
    if (this.isEnded) {
      // Piped input read to its end still gets a prompt before each message it held, as it had while open.
      if (!this.terminal) this.output.write(PROMPT);
      return;
    }
    this.rl.setPrompt(this.held.length > 0 ? MORE : PROMPT);
    this.rl.prompt();
  }

  discard(): void {
    this.held.length = 0;
    this.chunk = [];
    if (this.terminal) this.clearLine();
    this.rl.setPrompt(PROMPT);
  }

  /** Empties the line readline holds (Ctrl-E, Ctrl-U). */
  private clearLine(): void {
    this.rl.write(null, { ctrl: true, name: 'e' });
    this.rl.write(null, { ctrl: true, name: 'u' });
  }

  close(): void {
    this.closing = true;
    this.rl.close();
  }

  get asking(): boolean {
    return this.answering?.keys === true;
  }

  ask(prompt: string, signal: AbortSignal, keys = false): Promise<string | null> {
    if (this.isEnded || signal.aborted) return Promise.resolve(null);
    const typedAhead = this.afterKey?.shift();
    if (typedAhead !== undefined) {
      this.output.write(`${prompt}${typedAhead}\n`);
      return Promise.resolve(typedAhead);
    }
    const aside = this.terminal ? this.rl.line : '';
    if (aside !== '') this.clearLine();
    return new Promise((resolve) => {
      const done = (answer: string | null) => {
        signal.removeEventListener('abort', aborted);
        this.answering = undefined;
        this.rl.setPrompt(PROMPT);
        if (aside !== '' && !this.isEnded) this.rl.write(aside);
        resolve(answer);
      };
      const aborted = () => {
        this.output.write('\n');
        done(null);
      };
      signal.addEventListener('abort', aborted, { once: true });
      // Keys answer a choice; a free answer (a reason) is a whole line.
      this.answering = { resolve: done, keys };
      this.rl.setPrompt(prompt);
      this.rl.prompt();
    });
  }

  /** A question's key pressed: the line readline holds is cleared and the key is the answer. */
  answerKey(key: string): void {
    const answering = this.answering;
    if (answering === undefined) return;
    this.clearLine();
    this.output.write(`${key === '\x1b' ? 'Esc' : key}\n`);
    answering.resolve(key);
    // What readline reads after the key in this chunk is typed ahead for the next question (the reason after a "3"):
    // kept until the chunk is done, then, if no question took it, read as any line.
    const after: string[] = (this.afterKey = []);
    setImmediate(() => {
      if (this.afterKey === after) this.afterKey = undefined;
      for (const line of after) this.line(line);
    });
  }

  /** A line readline read: part of a paste, a typed line, or (in a terminal) a line of the chunk being read. */
  line(line: string): void {
    if (this.isEnded) return;
    if (this.afterKey !== undefined && !this.answering) return void this.afterKey.push(line);
    if (this.answering && !this.pasting) return this.answering.resolve(line);
    if (this.pasting) {
      this.held.push(line);
      this.goOn();
    } else if (!this.terminal) {
      this.typed(line);
    } else {
      if (this.chunk.length === 0) setImmediate(() => this.endOfChunk());
      this.chunk.push(line);
    }
  }

  /** The input closed: what was held is sent, whoever still waits gets `null`. */
  ended(): void {
    this.isEnded = true;
    // Ctrl-D leaves the cursor after the prompt: the shell's next prompt starts on a line of its own.
    if (this.terminal) this.output.write(`${this.closing ? '' : '\n'}${PASTE_OFF}`);
    this.answering?.resolve(null);
    if (this.chunk.length > 0) this.held.push(...this.chunk.splice(0));
    if (this.held.some((line) => line.trim() !== '')) this.submit();
    while (this.waiting.length > 0) this.deliver(null);
  }

  private deliver(message: string | null): void {
    const taker = this.waiting.shift();
    if (taker) taker(message);
    else if (message !== null) this.ready.push(message);
  }

  private submit(): void {
    const message = this.held.join('\n').replace(/\s+$/, '');
    this.held.length = 0;
    this.rl.setPrompt(PROMPT);
    this.deliver(message);
  }

  private goOn(): void {
    this.rl.setPrompt(MORE);
    if (this.terminal) this.rl.prompt(true);
  }

  /** A line that ended with Enter outside a paste. */
  private typed(line: string): void {
    if (line.endsWith('\\')) {
      this.held.push(line.slice(0, -1));
      return this.goOn();
    }
    this.held.push(line);
    this.submit();
  }

  private endOfChunk(): void {
    const lines = this.chunk;
    this.chunk = [];
    // One line and nothing after it: typed. More, or text after the newline: a paste the terminal did not mark,
    // sent now if it ended with a newline.
    if (lines.length === 1 && this.rl.line === '') return this.typed(lines[0] as string);
    this.held.push(...lines);
    if (this.rl.line === '') this.submit();
    else this.goOn();
  }
}
