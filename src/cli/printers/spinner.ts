/**
 * The REPL's "the model is thinking" line: a spinner and the seconds since the request went out, on stderr, redrawn
 * in place. Only on a terminal (a pipe or a file gets nothing); NO_COLOR only takes its colour away. Whoever writes to
 * the terminal calls `stop()` first, which erases the line and leaves the cursor at its start, so no frame is left over.
 */
import { visible } from '../../core/visible.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const ERASE_LINE = '\r\x1b[2K';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

export interface Spinner {
  /** Starts (or restarts) the line with `label`; a no-op off a terminal. */
  start(label?: string): void;
  /** Erases the line; a no-op when it is not showing. */
  stop(): void;
  readonly spinning: boolean;
}

export interface SpinnerOptions {
  /** Where the line goes (stderr); it spins only when this is a terminal. */
  stream: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  /** Milliseconds between frames (default 80). */
  intervalMs?: number;
  now?: () => number;
}

export function createSpinner(options: SpinnerOptions): Spinner {
  const { stream, env } = options;
  const interval = options.intervalMs ?? 80;
  const now = options.now ?? Date.now;
  const enabled = stream.isTTY === true;
  const dim = env.NO_COLOR ? (s: string) => s : (s: string) => `\x1b[2m${s}\x1b[22m`;
  let timer: NodeJS.Timeout | undefined;
  let frame = 0;
  let started = 0;
  let label = 'thinking';

  const draw = () => {
    const seconds = ((now() - started) / 1000).toFixed(1);
    stream.write(`${ERASE_LINE}${dim(`${FRAMES[frame % FRAMES.length]} ${label} ${seconds}s`)}`);
    frame++;
  };
  // A process that ends while the line shows (a signal, an error) still gets its cursor back.
  const restore = () => {
    if (timer) stream.write(`${ERASE_LINE}${SHOW_CURSOR}`);
  };

  return {
    start(text = 'thinking') {
      if (!enabled) return;
      label = visible(text);
      started = now();
      frame = 0;
      if (!timer) {
        stream.write(HIDE_CURSOR);
        process.once('exit', restore);
        timer = setInterval(draw, interval);
        timer.unref();
      }
      draw();
    },
    stop() {
      if (!timer) return;
      clearInterval(timer);
      timer = undefined;
      process.off('exit', restore);
      stream.write(`${ERASE_LINE}${SHOW_CURSOR}`);
    },
    get spinning() {
      return timer !== undefined;
    },
  };
}
