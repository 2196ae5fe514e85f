/**
 * A program in a real pseudo-terminal: a tmux server of its own (its own `-L` socket, no config file) running one
 * shell command in a pane of a fixed size. Tests type keys, paste text (bracketed when the program asked for it, as a
 * terminal does), and wait for text on the screen by polling `capture-pane`, with a timeout instead of fixed sleeps.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TmuxPane {
  /** The socket name of this pane's server (`tmux -L NAME`). */
  readonly socket: string;
  /** Keys by tmux's names (`Enter`, `C-c`, `C-d`) or literal text with `{ literal: true }`. */
  keys(keys: string[], options?: { literal?: boolean }): Promise<void>;
  /** Types `text` (literally) and presses Enter. */
  line(text: string): Promise<void>;
  /**
   * Pastes `text` as a terminal does: in one piece, in bracketed paste markers when the program turned them on
   * (`bracketed: false`: as a terminal without bracketed paste does).
   */
  paste(text: string, options?: { bracketed?: boolean }): Promise<void>;
  /**
   * The screen and its scrollback (`scrollback: false`: the screen alone), wrapped lines joined, spaces at line ends and
   * blank lines at the end dropped.
   */
  screen(options?: { scrollback?: boolean }): Promise<string>;
  /** Polls the screen until `test` holds (a string it contains, a pattern, a predicate); the screen then. */
  waitFor(test: string | RegExp | ((screen: string) => boolean), timeoutMs?: number): Promise<string>;
  /** A tmux format about the pane, e.g. `#{pane_tty}`, `#{pane_title}`. */
  show(format: string): Promise<string>;
  /** Kills the server and everything in it. */
  close(): Promise<void>;
}

/**
 * Starts `command` (a shell command line) in a `width`×`height` pane in `cwd` with `env`; the server runs after `prefix`
 * (e.g. `setpriv` to another user, who then owns the pane's terminal).
 */
export async function openTmux(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; width?: number; height?: number; prefix?: string[] },
): Promise<TmuxPane> {
  const socket = `agentloop-test-${process.pid}-${randomUUID().slice(0, 8)}`;
  const env: NodeJS.ProcessEnv = { ...options.env };
  delete env.TMUX; // a test run inside tmux must not talk to the developer's server
  delete env.TMUX_PANE;
  // tmux runs the pane's command with $SHELL, else the user's login shell: nobody's is nologin, which exits at once
  // (an empty environment, as in CI, has no SHELL).
  env.SHELL = '/bin/sh';
  const [program = 'tmux', ...before] = [...(options.prefix ?? []), 'tmux', '-L', socket, '-f', '/dev/null'];
  const tmux = async (...args: string[]) => (await run(program, [...before, ...args], { env, cwd: options.cwd })).stdout;
  const width = String(options.width ?? 100);
  const height = String(options.height ?? 30);
  await tmux('new-session', '-d', '-s', 'test', '-x', width, '-y', height, '-c', options.cwd, command);
  // The pane stays readable after the program ends (its last words are what some tests check).
  await tmux('set-option', '-t', 'test', 'remain-on-exit', 'on');
  const target = 'test:0.0';
  const socketPath = (await tmux('display-message', '-p', '-t', target, '#{socket_path}')).trim();

  const screen = async (opts: { scrollback?: boolean } = {}) =>
    (await tmux('capture-pane', '-p', '-J', ...(opts.scrollback === false ? [] : ['-S', '-']), '-t', target))
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .replace(/\s+$/, '');
  return {
    socket,
    keys: async (keys, opts = {}) => {
      await tmux('send-keys', '-t', target, ...(opts.literal ? ['-l'] : []), ...keys);
    },
    line: async (text) => {
      if (text !== '') await tmux('send-keys', '-t', target, '-l', text);
      await tmux('send-keys', '-t', target, 'Enter');
    },
    paste: async (text, opts = {}) => {
      const name = `paste-${randomUUID().slice(0, 8)}`;
      await new Promise<void>((resolve, reject) => {
        const child = execFile(program, [...before, 'load-buffer', '-b', name, '-'], { env }, (error) =>
          error ? reject(error) : resolve(),
        );
        child.stdin?.end(text);
      });
      // -p: in bracketed paste markers if the program asked for them. A newline goes as Enter (\r), as from a terminal.
      await tmux('paste-buffer', ...(opts.bracketed === false ? [] : ['-p']), '-d', '-b', name, '-t', target);
    },
    screen,
    show: async (format) => (await tmux('display-message', '-p', '-t', target, format)).trim(),
    waitFor: async (test, timeoutMs = 15_000) => {
      const holds =
        typeof test === 'string' ? (s: string) => s.includes(test) : test instanceof RegExp ? (s: string) => test.test(s) : test;
      const deadline = Date.now() + timeoutMs;
      let last = '';
      for (;;) {
        last = await screen();
        if (holds(last)) return last;
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(test)}; the screen:\n${last}`);
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    },
    close: async () => {
      await tmux('kill-server').catch(() => undefined); // already gone: nothing to do
      if (socketPath) rmSync(socketPath, { force: true }); // tmux leaves the socket file behind
    },
  };
}

/** `text` quoted for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
