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
}

export function openReplInput(input: NodeJS.ReadStream, output: NodeJS.WriteStream): ReplInput {
  const rl = createInterface({ input, output, prompt: PROMPT });
  const terminal = rl.terminal;
  const held: string[] = []; // lines of the message being written
  const ready: string[] = []; // messages not taken yet (typed ahead while a run goes)
  const waiting: ((message: string | null) => void)[] = [];
  let chunk: string[] = []; // lines that arrived in the chunk being read
  let pasting = false;
  let ended = false;
  let closing = false;

  const deliver = (message: string | null) => {
    const taker = waiting.shift();
    if (taker) taker(message);
    else if (message !== null) ready.push(message);
  };
  const submit = () => {
    const message = held.join('\n').replace(/\s+$/, '');
    held.length = 0;
    rl.setPrompt(PROMPT);
    deliver(message);
  };
  const goOn = () => {
    rl.setPrompt(MORE);
    if (terminal) rl.prompt(true);
  };
  /** A line that ended with Enter outside a paste. */
  const typed = (line: string) => {
    if (line.endsWith('\\')) {
      held.push(line.slice(0, -1));
      goOn();
      return;
    }
    held.push(line);
    submit();
  };
  const endOfChunk = () => {
    const lines = chunk;
    chunk = [];
    // One line and nothing after it: typed. More, or text after the newline: a paste the terminal did not mark,
    // sent now if it ended with a newline.
    if (lines.length === 1 && rl.line === '') return typed(lines[0] as string);
    held.push(...lines);
    if (rl.line === '') submit();
    else goOn();
  };

  rl.on('line', (line) => {
    if (ended) return;
    if (pasting) {
      held.push(line);
      goOn();
    } else if (!terminal) {
      typed(line);
    } else {
      if (chunk.length === 0) setImmediate(endOfChunk);
      chunk.push(line);
    }
  });
  const onKey = (_text: string | undefined, key: { name?: string } | undefined) => {
    if (key?.name === 'paste-start') pasting = true;
    if (key?.name === 'paste-end') pasting = false;
  };
  const restore = () => output.write(PASTE_OFF); // a terminal's writes are synchronous, also at exit
  if (terminal) {
    input.on('keypress', onKey);
    output.write(PASTE_ON);
    process.once('exit', restore);
  }
  rl.on('close', () => {
    ended = true;
    if (terminal) {
      input.off('keypress', onKey);
      process.off('exit', restore);
      // Ctrl-D leaves the cursor after the prompt: the shell's next prompt starts on a line of its own.
      output.write(`${closing ? '' : '\n'}${PASTE_OFF}`);
    }
    if (chunk.length > 0) held.push(...chunk.splice(0));
    if (held.some((line) => line.trim() !== '')) submit();
    while (waiting.length > 0) deliver(null);
  });

  return {
    rl,
    next: () => {
      const message = ready.shift();
      if (message !== undefined) return Promise.resolve(message);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => waiting.push(resolve));
    },
    prompt: () => {
      if (ended) {
        // Piped input read to its end still gets a prompt before each message it held, as it had while open.
        if (!terminal) output.write(PROMPT);
        return;
      }
      rl.setPrompt(held.length > 0 ? MORE : PROMPT);
      rl.prompt();
    },
    discard: () => {
      held.length = 0;
      chunk = [];
      if (terminal) {
        rl.write(null, { ctrl: true, name: 'e' });
        rl.write(null, { ctrl: true, name: 'u' });
      }
      rl.setPrompt(PROMPT);
    },
    close: () => {
      closing = true;
      rl.close();
    },
  };
}
