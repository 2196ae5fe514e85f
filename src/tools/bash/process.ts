/**
 * Runs a command in its own process group and never waits for anything but the shell:
 *
 * - stdin is /dev/null; stdout and stderr share one pipe (`exec "$@" 2>&1`), so they interleave
 *   in write order;
 * - the child is detached (setsid): it leads a new session and process group with no controlling
 *   terminal, so nothing can prompt on the user's terminal, and the group can be killed whole;
 * - the end is the shell's 'exit' event, not the end of the pipe: when the shell exits, the group
 *   (background children included) is killed, the pipe drained, and the result returned;
 * - on timeout or abort the whole group gets SIGKILL at once.
 */
import { execa } from 'execa';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';

export interface RunOptions {
  /** The program and its arguments, e.g. `['bash', '-c', command]`. */
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  onData(chunk: Buffer): void;
}

export type RunEnding =
  | { kind: 'exit'; code: number | null; signal: string | null }
  | { kind: 'timeout' }
  | { kind: 'aborted'; started: boolean }
  | { kind: 'spawn-error'; message: string };

/** After the shell exits and its group is killed, how long the pipe may stay silent before we stop reading it. */
const DRAIN_IDLE_MS = 300;

export function runInProcessGroup(options: RunOptions): Promise<RunEnding> {
  const { argv, cwd, env, timeoutMs, signal, onData } = options;
  if (signal.aborted) return Promise.resolve({ kind: 'aborted', started: false });

  return new Promise((resolve) => {
    const child = execa('/bin/sh', ['-c', 'exec "$@" 2>&1', 'sh', ...argv], {
      cwd,
      env,
      extendEnv: false,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      detached: true,
      reject: false,
      cleanup: false,
    });
    // With `reject: false` the promise does not reject; it settles once the pipes are closed.
    void child.catch(() => undefined);
    const pid = child.pid;
    const streams = [child.stdout, child.stderr].filter((s): s is Readable => s !== null);
    let stop: 'timeout' | 'aborted' | null = null;
    let exited: { code: number | null; signal: string | null } | null = null;
    let open = streams.length;
    let drainTimer: NodeJS.Timeout | undefined;
    let done = false;

    const finish = (ending: RunEnding): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      signal.removeEventListener('abort', onAbort);
      if (pid !== undefined) liveGroups.delete(pid);
      resolve(ending);
    };
    const settle = (): void => {
      if (exited === null || open > 0) return;
      if (stop === 'timeout') finish({ kind: 'timeout' });
      else if (stop === 'aborted') finish({ kind: 'aborted', started: true });
      else finish({ kind: 'exit', ...exited });
    };
    const armDrainTimer = (): void => {
      clearTimeout(drainTimer);
      // A descendant that left the group (setsid, a daemon) may hold the pipe: stop reading.
      drainTimer = setTimeout(() => streams.forEach((s) => s.destroy()), DRAIN_IDLE_MS);
    };
    const kill = (reason: 'timeout' | 'aborted'): void => {
      stop ??= reason;
      if (pid !== undefined) killGroup(pid);
    };
    const onAbort = (): void => kill('aborted');
    const timer = setTimeout(() => kill('timeout'), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });

    for (const s of streams) {
      // Node's pipes are socket pairs, and a program that finds stdin at EOF may read from its
      // stdout or stderr instead (vim does): shutting our writing side down gives it EOF there too.
      if (s instanceof Socket) s.end();
      s.on('data', (chunk: Buffer) => {
        onData(chunk);
        if (exited !== null) armDrainTimer();
      });
      s.once('close', () => {
        open--;
        settle();
      });
      s.on('error', () => undefined);
    }
    child.once('exit', (code, sig) => {
      exited = { code, signal: sig };
      if (pid !== undefined) killGroup(pid);
      armDrainTimer();
      settle();
    });
    child.once('error', (err) => {
      if (pid === undefined) finish({ kind: 'spawn-error', message: err.message });
    });
    if (pid !== undefined) trackGroup(pid);
  });
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

function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => liveGroups.forEach(killGroup));
}
