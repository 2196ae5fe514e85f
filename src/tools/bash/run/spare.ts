/**
 * The contained shell of a run's first command, started ahead (issue 40): while the run's first model call is under
 * way, the contained way (contained.ts) starts the whole chain a command starts with (the lifeline's watcher,
 * bubblewrap and its PID namespace) with a small reader at its end, `/bin/sh` (dash) reading the command from a pipe.
 * The command, when it comes, is written to that pipe, and the reader does what the shell before a command does
 * (programs.ts namespaceBackstop): it forks the backstop's sleeper and becomes `bash -c COMMAND` by exec. The command's
 * processes are those it would have had, in the namespace, process group and session it would have had, with the same
 * argv, working directory and environment. What the first command no longer waits for: the spawn's
 * fork and exec on the main thread, and bubblewrap setting its namespace up (BENCHMARKS.md, peers (a)).
 *
 * What holds (test/tools/bash/bashSpare.process.test.ts, as root and as nobody):
 * - a spare serves one command: it is taken (forgotten here) before the command is written, and its reader execs;
 * - a command is given a spare only when everything it would be started with is the spare's: bubblewrap's argv (and
 *   so the working directory), the environment, the sleep program; else the spare is killed and the command started
 *   as always. A command over PIPE_BUF bytes (one atomic write) or with a NUL byte is started as always;
 * - the command's timeout starts when the command is written (the agent's timer, and the sleeper is forked then);
 * - an unused spare is killed at the end of the run that made it (`signal`), when this process exits, and by the
 *   lifeline's watcher when it dies; a spare whose chain ended early (bubblewrap refused) is dropped, never used;
 * - one spare at a time in a process: runs at once do not each start one.
 */
import { closeSync, writeSync } from 'node:fs';
import { lifeline, watched } from './lifeline.js';
import { openLifelinePipe, openOutputPipe } from './pipe.js';
import { backstopSeconds, SH, SLEEPER } from './programs.js';
import { killGroup, spawnDetached, trackGroup, untrackGroup, watchStarted, type RunEnding, type RunOptions, type ShellProcess } from './process.js';

/** What a spare is started with: bubblewrap's argv up to its `--`, the working directory, the environment. */
export interface SpareShape {
  prefix: [string, ...string[]];
  cwd: string;
  env: Record<string, string>;
  /** coreutils' sleep, the backstop's sleeper's. */
  sleepBin: string;
}

/**
 * The reader (dash, no process of its own on the way): the backstop's seconds, the number of lines, the lines, from
 * fd 4; then fd 4 closed and the command started as the contained way starts it (the sleeper's script itself, with the
 * arguments it is given there). Its variables are not exported: a
 * spare is refused for an environment that holds one of their names (`READER_NAMES`).
 */
const READER = [
  '{ IFS= read -r agentloop_s && IFS= read -r agentloop_n; } <&4 || exit 125',
  'agentloop_c= agentloop_i=0',
  'while [ "$agentloop_i" -lt "$agentloop_n" ]; do',
  '  IFS= read -r agentloop_l <&4 || exit 125',
  '  if [ "$agentloop_i" = 0 ]; then agentloop_c=$agentloop_l; else agentloop_c="$agentloop_c',
  '$agentloop_l"; fi',
  '  agentloop_i=$((agentloop_i + 1))',
  'done',
  'exec 4<&-',
  'set -- "$1" "$agentloop_s" bash -c "$agentloop_c"',
  SLEEPER,
].join('\n');
const READER_NAMES = ['agentloop_s', 'agentloop_n', 'agentloop_c', 'agentloop_i', 'agentloop_l', 'IFS'];
/** The most a command may be to be written in one atomic write (PIPE_BUF). */
const MAX_BYTES = 4096;

interface Spare {
  shape: SpareShape;
  child: ShellProcess;
  pid: number;
  /** The read end of the command's output pipe (the chain holds its write end as stdout and stderr). */
  outputFd: number;
  /** The write end of the reader's pipe. */
  channelFd: number;
  /** The chain ended before a command came. */
  ended: boolean;
}

let current: Spare | undefined;
/** A spare is on its way (its pipes opening); a command that came meanwhile sets it back to undefined: none is spawned. */
let starting: object | undefined;

/** Starts a spare of `shape` unless one lives, or is on its way; killed when `signal` aborts (the run's end). */
export function startSpare(shape: SpareShape, signal: AbortSignal): void {
  if (current !== undefined || starting !== undefined || signal.aborted || READER_NAMES.some((name) => name in shape.env)) return;
  const mine = {};
  starting = mine;
  void Promise.allSettled([openOutputPipe(), openLifelinePipe(), lifeline()]).then(([output, channel, line]) => {
    const wanted = starting === mine && !signal.aborted;
    if (starting === mine) starting = undefined;
    if (output.status !== 'fulfilled' || channel.status !== 'fulfilled') {
      for (const pipe of [output, channel]) if (pipe.status === 'fulfilled') closePipe(pipe.value);
      return;
    }
    const fd = line.status === 'fulfilled' ? line.value : undefined;
    const spare = wanted && fd !== undefined ? spawnSpare(shape, output.value, channel.value, fd) : undefined;
    closeSync(output.value.writeFd); // the chain holds it now (or no one)
    closeSync(channel.value.readFd);
    if (spare === undefined) {
      closeSync(output.value.readFd);
      closeSync(channel.value.writeFd);
      return;
    }
    current = spare;
    signal.addEventListener('abort', () => drop(spare), { once: true });
  });
}

function closePipe(pipe: { readFd: number; writeFd: number }): void {
  closeSync(pipe.readFd);
  closeSync(pipe.writeFd);
}

function spawnSpare(shape: SpareShape, output: { readFd: number; writeFd: number }, channel: { readFd: number; writeFd: number }, line: number): Spare | undefined {
  const argv = watched([...shape.prefix, SH, '-c', READER, 'sh', shape.sleepBin], line, shape.env.PATH);
  if (argv[0] !== SH) return undefined; // no watcher: no spare (the command starts as always)
  let child: ShellProcess;
  try {
    child = spawnDetached(argv[0], argv.slice(1), shape.cwd, shape.env, output.writeFd, line, [channel.readFd]).child;
  } catch {
    return undefined;
  }
  if (child.pid === undefined) {
    child.on('error', () => undefined);
    return undefined;
  }
  const spare: Spare = { shape, child, pid: child.pid, outputFd: output.readFd, channelFd: channel.writeFd, ended: false };
  trackGroup(spare.pid);
  child.once('exit', () => {
    spare.ended = true;
    drop(spare);
  });
  child.on('error', () => undefined);
  return spare;
}

/** Kills `spare` unless a command took it, and closes what this process holds of it. */
function drop(spare: Spare): void {
  if (current !== spare) return;
  current = undefined;
  killGroup(spare.pid);
  untrackGroup(spare.pid);
  closeSync(spare.outputFd);
  closeSync(spare.channelFd);
}

/**
 * Runs `command` in the spare when it fits (see the header): the run's ending, as the process runner gives it.
 * Undefined when there is none or it does not fit (then it is killed): the caller starts the command as always.
 */
export function runInSpare(shape: SpareShape, command: string, options: Omit<RunOptions, 'argv'>): Promise<RunEnding> | undefined {
  const spare = current;
  starting = undefined; // one on its way comes too late for this command, and would wait for none
  if (spare === undefined) return undefined;
  const message = Buffer.from(`${backstopSeconds(options.timeoutMs)}\n${linesOf(command)}`);
  if (spare.ended || !sameShape(spare.shape, shape) || command.includes('\0') || message.length > MAX_BYTES || options.signal.aborted) {
    drop(spare);
    return undefined;
  }
  current = undefined; // one command a spare
  let written = false;
  try {
    written = writeSync(spare.channelFd, message) === message.length;
  } catch {
    // the reader is gone
  }
  closeSync(spare.channelFd); // the reader has read all it will read
  if (!written) {
    killGroup(spare.pid);
    untrackGroup(spare.pid);
    closeSync(spare.outputFd);
    return undefined;
  }
  options.onSpawned?.();
  return watchStarted(spare.child, spare.outputFd, options);
}

/** The command as the reader reads it: the number of its lines, then each line ended by a newline. */
function linesOf(command: string): string {
  const lines = command.split('\n');
  return `${lines.length}\n${lines.join('\n')}\n`;
}

function sameShape(a: SpareShape, b: SpareShape): boolean {
  if (a.cwd !== b.cwd || a.sleepBin !== b.sleepBin || a.prefix.length !== b.prefix.length) return false;
  if (a.prefix.some((arg, i) => arg !== b.prefix[i])) return false;
  const keys = Object.keys(a.env);
  return keys.length === Object.keys(b.env).length && keys.every((key) => Object.hasOwn(b.env, key) && a.env[key] === b.env[key]);
}
