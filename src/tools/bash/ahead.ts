/**
 * What the bash tool does ahead of its first command (`prepare`), and the count of commands called, to which those
 * warm-ups give way: in a fresh process they would otherwise sit on the path of the first command.
 */
import type { ToolPrepare } from '../../core/tool.js';
import { toolCalled, whileModelThinks } from '../modelThinks.js';
import { isSafeAlongside } from './judge/checks.js';
import { loadShellParser } from './judge/shell/load.js';
import { plainReader } from './judge/shell/reader.js';
import { prepareFifos } from './run/pipe.js';
import { loadProcesses, type CommandRunner } from './run/runner.js';

/** What `prepare` needs of the tool: its way of running commands, and the environment a command would get now. */
export interface Ahead {
  runner(): Promise<CommandRunner>;
  commandEnv(): Record<string, string>;
}

/**
 * While the first model call is under way: what waits on other processes and files first (the FIFOs), the choice of a
 * runner (a bwrap probe, unless an earlier process kept its verdict); then, told of its run (`run`: its folder and its
 * end), the runner's own start ahead (the contained way starts the whole chain of the run's first command, all but the
 * command: run/spare.ts), else a warm-up `true` run; one check through the plain reader, so that later checks run
 * compiled code; and the parser's load, only while the model is still thinking (../modelThinks.ts): plain words need no
 * parser, and its load (25-60 ms of CPU, its WebAssembly memory, a Mark-Compact) would otherwise sit on the path of a
 * reply that comes at once. A command that needs the parser before then loads it (its check waits: ~0.1 s once). No
 * warm-up parse: the parser's first parse compiles its WebAssembly, ~20 ms of CPU (V8's tiers) that a process whose
 * commands are all plain words never needs (bench/engine.ts: 9a), and that the first command needing the parser pays
 * instead (its first check, ~8 ms later). Nothing is started ahead once a command came.
 */
export function prepare(tool: Ahead, run: ToolPrepare | undefined): void {
  prepareFifos();
  const runnerReady = Promise.all([loadProcesses(), tool.runner()]).then(([processes, runner]) => {
    processes.prepareProcesses({ warmUp: false });
    // The run's first command, started ahead where the runner can (the contained way: run/spare.ts).
    if (run !== undefined && runner.prepare !== undefined) {
      if (commandsCalled === 0) runner.prepare({ ...run, env: tool.commandEnv() });
      return;
    }
    // Else a warm-up run, a process of its own, after a wait: at once it would sit before a first command that comes
    // right after the reply begins (its fork and exec on the main thread, its process beside the command's). None once
    // one came.
    setTimeout(() => {
      if (commandsCalled === 0) processes.prepareProcesses({ warmUp: true });
    }, WARM_UP_AFTER_MS).unref();
  });
  isSafeAlongside(plainReader, 'ls -A');
  const warmParser = () => void loadShellParser().catch(() => undefined);
  const thinking = whileModelThinks(warmParser, run?.signal);
  runnerReady.then(thinking, thinking);
}

/** Commands called in this process: after the first, the path is warm (no warm-up run, no parser load ahead). */
let commandsCalled = 0;
/** How long after the reply begins the warm-up run may start. */
const WARM_UP_AFTER_MS = 100;

/** Runs `command`, counted among the commands called (what `prepare` starts ahead gives way to them). */
export function called<T>(command: () => Promise<T>): Promise<T> {
  commandsCalled++;
  toolCalled();
  return command();
}
