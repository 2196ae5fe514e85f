/**
 * The signals that end a run: SIGTERM (`kill`), SIGHUP (the terminal closed) and, for a one-shot
 * run, SIGINT (Ctrl-C). Each aborts the run the same way, so its tools are killed and its
 * transcript gets its `result` record; the CLI then exits with 128 + the signal's number, as a
 * shell reports a process killed by it.
 */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
export type EndSignal = keyof typeof SIGNAL_EXIT_CODES;

export interface EndSignals {
  /** 128 + the number of the signal that came first; 0 while none has. */
  readonly exitCode: number;
  /** Stops listening. */
  stop(): void;
}

/**
 * Calls `onEnd` when one of `signals` arrives. After SIGHUP the terminal is gone: writing to it
 * fails (EIO, EPIPE), which must not crash the run while it closes its transcript, so errors of
 * stdout and stderr are ignored from then on.
 */
export function onEndSignals(signals: readonly EndSignal[], onEnd: (signal: EndSignal) => void): EndSignals {
  let exitCode = 0;
  const handlers = signals.map((signal) => {
    const handler = () => {
      if (signal === 'SIGHUP') ignoreOutputErrors();
      exitCode ||= SIGNAL_EXIT_CODES[signal];
      onEnd(signal);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return {
    get exitCode() {
      return exitCode;
    },
    stop() {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    },
  };
}

let ignoring = false;
function ignoreOutputErrors(): void {
  if (ignoring) return;
  ignoring = true;
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
}

/**
 * Calls `onGone` once the process that started this one is gone (this one was re-parented): for a stream-json
 * session, the Agent SDK program driving it was killed, and nothing will read its output or answer its questions.
 * Output errors are ignored from then on, as after SIGHUP. Looked at every `everyMs`; the timer keeps no process alive.
 */
export function onParentGone(onGone: () => void, everyMs = 250): { stop(): void } {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    ignoreOutputErrors();
    onGone();
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
