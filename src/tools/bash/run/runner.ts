/**
 * One interface for every way of running a command (pi's BashOperations, mini-swe-agent's environments): the bash
 * tool chooses its runner once (choose.ts) and hands it each command. The ways:
 *
 * - plain.ts: bash in a process group of its own, nothing more (asked for, or where nothing can contain);
 * - contained.ts: a PID namespace of its own made by bubblewrap, the host's file system as it is, root's dangerous
 *   capabilities, the kernel's settings and the user's terminals out of reach (the default);
 * - unshare.ts: the same made with util-linux's unshare, where bubblewrap is missing;
 * - sandbox.ts: bubblewrap with a read-only system, no network, what is not the task's hidden (`--sandbox`).
 *
 * Each builds the argv of its command and starts it with the process runner (process.ts).
 */
import * as processes from './process.js';
import type { RunEnding, RunOptions } from './process.js';

export type { RunEnding } from './process.js';

export type RunnerKind = 'plain' | 'contained' | 'unshare' | 'sandboxed';

/** One command to run: what the process runner needs besides the argv. */
export type CommandRun = Omit<RunOptions, 'argv'> & { command: string };

/**
 * A way of running commands: agentloop's own (the kinds above), or one a library user passes to the bash tool
 * (`createBashTool({ runner })`, `defaultTools({ runner })`): over SSH, in a container.
 */
export interface CommandRunner {
  /** `plain`, `contained`, `unshare`, `sandboxed` for agentloop's own; any name for one of yours (`ssh`). */
  readonly kind: RunnerKind | (string & {});
  /**
   * Runs `run.command` with bash in `run.cwd`; resolves once it has ended, never rejects. Hands the output (stdout and
   * stderr, as one stream) to `run.onData` as it comes, calls `run.onSpawned` once the command runs (or could not
   * start), ends it at `run.timeoutMs` (`{ kind: 'timeout' }`) or when `run.signal` aborts (`{ kind: 'aborted' }`).
   */
  run(run: CommandRun): Promise<RunEnding>;
  /**
   * The argv that starts a long-lived program (an MCP server: tools/mcp/stdio.ts) contained as this runner contains
   * its commands, without their timeout, working in `cwd`; its stdin, stdout and stderr are the caller's. Absent: this
   * way cannot run such a program.
   */
  wrap?(argv: [string, ...string[]], cwd: string): [string, ...string[]];
  /**
   * Starts ahead what a command run in `cwd` with `env` would start with, while the run's first model call is under way
   * (the contained way: spare.ts); stopped when `signal` aborts (the run's end). Absent: nothing to start ahead.
   */
  prepare?(ahead: CommandAhead): void;
}

/** What the first command of a run is likely to be started with (`CommandRunner.prepare`). */
export interface CommandAhead {
  cwd: string;
  env: Record<string, string>;
  signal: AbortSignal;
}

/**
 * The process runner. Imported with the tool since it spawns with child_process itself (it was loaded on first use
 * while it imported execa, 25 ms): a dynamic import waits for Node's thread pool and the main thread, which on a busy
 * machine, with the first reply coming in, put it ~100 ms after the reply's first tool call (issue 40).
 */
export function loadProcesses(): Promise<typeof processes> {
  return Promise.resolve(processes);
}

/** Starts `argv` (after `before`, e.g. the timeout backstop) as the command `run` describes, in a process group of its own. */
export async function launch(argv: [string, ...string[]], run: CommandRun, before: string[] = []): Promise<RunEnding> {
  const { runInProcessGroup } = await loadProcesses();
  const { command: _command, ...options } = run;
  return runInProcessGroup({ ...options, argv: [...before, ...argv] as [string, ...string[]] });
}
