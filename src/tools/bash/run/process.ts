/**
 * Runs a command in its own process group and never waits for anything but the shell:
 *
 * - stdin is /dev/null; stdout and stderr are one pipe (see pipe.ts), interleaved in write order;
 * - the child is detached (setsid): it leads a new session and process group with no controlling
 *   terminal, so nothing can prompt on the user's terminal, and the group can be killed whole;
 * - the end is the shell's 'exit' event, not the end of the pipe: when the shell exits, the group
 *   (background children included) is killed, the pipe drained, and the result returned;
 * - on timeout or abort the whole group gets SIGKILL at once;
 * - when this process dies, kill -9 included, a watcher in the group kills it (lifeline.ts).
 */
import { spawn } from 'node:child_process';
import { closeSync } from 'node:fs';
import type { Socket } from 'node:net';
import { lifeline, watched, withLifeline } from './lifeline.js';
import { openOutputPipe, pipeReader, prepareFifos, type OutputPipe } from './pipe.js';

let warmedUp = false;

/**
 * What the first command would otherwise wait for: a batch of FIFOs, and once per process a `true` run the way a
 * command runs (a FIFO, the spawn, the exit, the drain), so that the first real command runs code V8 has compiled
 * already (cold, that path cost the first command of a process ~15 ms more than the next: `npm run bench -- --only=startup`).
 * No warm-up when a command is already waiting for this module: it warms the path itself, and a run before it would
 * only delay it.
 */
export function prepareProcesses(options: { warmUp: boolean } = { warmUp: true }): void {
  prepareFifos();
  if (warmedUp || !options.warmUp) return;
  warmedUp = true;
  const idle = new AbortController();
  runInProcessGroup({ argv: ['true'], cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 5_000, signal: idle.signal, onData: () => undefined }).catch(
    () => undefined,
  );
}

export interface RunOptions {
  /** The program and its arguments, e.g. `['bash', '-c', command]`. */
  argv: [string, ...string[]];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Bytes as read (a Buffer; typed as what it is to a program without Node's types: the package's types need none). */
  onData(chunk: Uint8Array): void;
  /** Called once: when the spawn has returned (the shell runs, or it failed to start), or when the run ends without one. */
  onSpawned?(): void;
}

export type RunEnding =
  | { kind: 'exit'; code: number | null; signal: string | null }
  | { kind: 'timeout' }
  | { kind: 'aborted'; started: boolean }
  | { kind: 'spawn-error'; message: string };

/**
 * After the shell exits and its group is killed, the pipe normally ends at once. A descendant
 * that left the group (setsid, a daemon) may still hold it: we stop reading once the pipe has
 * been silent for DRAIN_IDLE_MS, or at the latest DRAIN_MAX_MS after the exit.
 */
const DRAIN_IDLE_MS = 300;
const DRAIN_MAX_MS = 2000;
/** setTimeout's limit; a longer delay would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export async function runInProcessGroup(options: RunOptions): Promise<RunEnding> {
  let spawned = options.onSpawned;
  const onSpawned = () => {
    spawned?.();
    spawned = undefined;
  };
  const ending = runBeforeSpawn({ ...options, onSpawned });
  ending.then(onSpawned, onSpawned); // a run that ended without a spawn
  return ending;
}

async function runBeforeSpawn(options: RunOptions): Promise<RunEnding> {
  if (options.signal.aborted) return { kind: 'aborted', started: false };
  let pipe: OutputPipe;
  let line: number | undefined;
  try {
    [pipe, line] = await Promise.all([openOutputPipe(), lifeline()]);
  } catch (err) {
    return { kind: 'spawn-error', message: `could not create the output pipe: ${(err as Error).message}` };
  }
  if (options.signal.aborted) {
    closeSync(pipe.writeFd);
    closeSync(pipe.readFd);
    return { kind: 'aborted', started: false };
  }
  return run(options, pipe, line);
}

function run(options: RunOptions, pipe: OutputPipe, line: number | undefined): Promise<RunEnding> {
  const { readFd, writeFd } = pipe;
  const [file, ...args] = watched(options.argv, line, options.env.PATH);
  let shell: Shell;
  try {
    shell = spawnDetached(file, args, options.cwd, options.env, writeFd, line);
    options.onSpawned?.();
  } catch (err) {
    closeSync(readFd); // Node refused the options; a failed spawn itself comes as an 'error'
    return Promise.resolve({ kind: 'spawn-error', message: (err as Error).message });
  } finally {
    // Only the child holds the write end now: the pipe ends when it and its descendants close it.
    closeSync(writeFd);
  }
  const { child, result } = shell;
  if (child.pid === undefined) {
    // Not started (no bash on the PATH, a bad cwd): the 'error' event says why.
    closeSync(readFd);
    return result.then(
      (r): RunEnding => ({ kind: 'spawn-error', message: startError(r) }),
      (err: unknown): RunEnding => ({ kind: 'spawn-error', message: String(err) }),
    );
  }
  // Everything from here on runs while the command starts; what it writes waits in the pipe.
  return watchStarted(child, readFd, options);
}

/** Watches `child` (spawned, its pid known, writing to the pipe whose read end is `readFd`) to its end, its timeout from now. */
export function watchStarted(child: ShellProcess, readFd: number, options: Omit<RunOptions, 'argv'>): Promise<RunEnding> {
  return new Promise((resolve) => new Watch(child, child.pid as number, pipeReader(readFd), options, resolve));
}

/**
 * Watches a started shell to its end: its output, its exit (then its group is killed), the end of its pipe, the
 * timeout and the abort. The result comes when both the exit and the end of the pipe are in.
 */
class Watch {
  private stop: 'timeout' | 'aborted' | null = null;
  private exited: { code: number | null; signal: string | null } | null = null;
  private pipeClosed = false;
  private done = false;
  private chunks = 0;
  private armedAt = 0;
  private drainTimer: NodeJS.Timeout | undefined;
  private drainDeadline: NodeJS.Timeout | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = (): void => this.kill('aborted');

  constructor(
    child: ShellProcess,
    private readonly pid: number,
    private readonly reader: Socket,
    private readonly options: Omit<RunOptions, 'argv'>,
    private readonly resolve: (ending: RunEnding) => void,
  ) {
    this.timer = setTimeout(() => this.kill('timeout'), Math.min(options.timeoutMs, MAX_TIMER_MS));
    // An abort that came since the spawn (in `onSpawned`) fires no listener added now.
    if (options.signal.aborted) this.kill('aborted');
    else options.signal.addEventListener('abort', this.onAbort, { once: true });
    reader.on('data', (chunk: Buffer) => this.data(chunk));
    reader.on('error', () => undefined);
    reader.once('close', () => {
      this.pipeClosed = true;
      this.settle();
    });
    // First: the result is not kept waiting for any other listener.
    child.prependOnceListener('exit', (code, signal) => this.exit(code, signal));
    child.on('error', () => undefined); // after a successful spawn (a failed kill): nothing to do
    trackGroup(pid);
  }

  private data(chunk: Buffer): void {
    this.chunks++;
    this.options.onData(chunk);
    if (this.exited !== null) this.armDrainTimer();
  }

  private exit(code: number | null, signal: string | null): void {
    this.exited = { code, signal };
    killGroup(this.pid);
    if (this.pipeClosed) {
      this.settle(); // the usual case: the pipe ended before the exit was reported
      return;
    }
    this.armDrainTimer();
    // The bound on an escaped descendant that keeps writing; what is in the pipe when it comes is still read.
    this.drainDeadline = setTimeout(() => setImmediate(() => this.reader.destroy()), DRAIN_MAX_MS);
  }

  private kill(reason: 'timeout' | 'aborted'): void {
    if (this.exited === null) this.stop ??= reason;
    killGroup(this.pid);
  }

  private armDrainTimer(): void {
    clearTimeout(this.drainTimer);
    this.armedAt = Date.now();
    this.drainTimer = setTimeout(() => this.stopReadingWhenSilent(), DRAIN_IDLE_MS);
  }

  /**
   * Stops reading, but only after the loop has polled the pipe once more: a timer can come due while the event
   * loop is busy elsewhere (many runs at once), before the output already waiting in the pipe was read. Output
   * read in that poll means the pipe was not silent: the timer starts again instead.
   */
  private stopReadingWhenSilent(): void {
    // Come due well after its time: the loop was busy, so the silence was not watched. Watch it again.
    if (Date.now() - this.armedAt > DRAIN_IDLE_MS * 1.5) {
      this.armDrainTimer();
      return;
    }
    const seen = this.chunks;
    setImmediate(() => {
      if (this.chunks === seen) this.reader.destroy();
    });
  }

  private settle(): void {
    if (this.exited === null || !this.pipeClosed) return;
    if (this.stop === 'timeout') this.finish({ kind: 'timeout' });
    else if (this.stop === 'aborted') this.finish({ kind: 'aborted', started: true });
    else this.finish({ kind: 'exit', ...this.exited });
  }

  private finish(ending: RunEnding): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    clearTimeout(this.drainTimer);
    clearTimeout(this.drainDeadline);
    this.options.signal.removeEventListener('abort', this.onAbort);
    this.reader.destroy();
    liveGroups.delete(this.pid);
    this.resolve(ending);
  }
}

/**
 * A started shell as this module and run/spare.ts use it (Node's ChildProcess is one), named so here: the package's
 * types need no Node types (test/install/dts.process.test.ts), and runner.ts's types reach this file's.
 */
export interface ShellProcess {
  readonly pid?: number | undefined;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'exit', listener: (code: number | null, signal: string | null) => void): unknown;
  prependOnceListener(event: 'exit', listener: (code: number | null, signal: string | null) => void): unknown;
}

/** Why a spawn failed, when it did. */
interface ShellResult {
  cause?: unknown;
}

/** The started shell, and the promise of why its spawn failed (it settles at the spawn's 'error', or at the exit). */
export interface Shell {
  child: ShellProcess;
  result: Promise<ShellResult>;
}

function startError(result: ShellResult): string {
  return result.cause instanceof Error ? result.cause.message : 'unknown error';
}

/**
 * Starts the shell, detached, stdout and stderr both on the pipe's write end, stdin /dev/null, the environment exactly
 * `env`. child_process.spawn itself, not execa: the runner needs none of what execa adds (its output, its promise, its
 * cleanup, which a detached child skips anyway), and execa's import was 25 ms of a fresh process's CPU between the
 * first reply and its first command (bench/engine.ts). A spawn that fails (no such program, a bad cwd) leaves
 * `child.pid` undefined and emits 'error'; options Node refuses throw here.
 */
export function spawnDetached(file: string, args: string[], cwd: string, env: Record<string, string>, outFd: number, line: number | undefined, more: number[] = []): Shell {
  const stdio = [...withLifeline<'ignore' | number>(['ignore', outFd, outFd], line), ...more];
  const child = spawn(file, args, { cwd, env, stdio, detached: true });
  const result = new Promise<ShellResult>((resolve) => {
    child.once('error', (cause) => resolve({ cause }));
    child.once('exit', () => resolve({}));
  });
  return { child, result };
}

/** SIGKILL to every process of the group; a group that is already gone is fine. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/** Groups still running, killed if this process exits first (detached children are not). */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => liveGroups.forEach(killGroup));
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}
