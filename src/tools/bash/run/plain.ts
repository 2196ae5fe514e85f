/**
 * The plain way: bash in a process group of its own (process.ts), killed whole on exit, timeout and abort. A process a
 * command starts with `setsid` escapes the group, and one still running when the agent is killed outlives it; the
 * command sees the host's processes in /proc. Used when asked (`contain: false`), or, with a warning, where no
 * namespace can be made (choose.ts): then with `timeout -s KILL` before the shell, so that the command dies at its
 * timeout even when the agent is stopped.
 */
import { backstop } from './programs.js';
import { launch, type CommandRun, type CommandRunner } from './runner.js';

export function plainRunner(timeoutBin?: string): CommandRunner {
  return {
    kind: 'plain',
    run: (run: CommandRun) => launch(['bash', '-c', run.command], run, backstop(timeoutBin, run.timeoutMs)),
    wrap: (argv) => argv,
  };
}
