/**
 * The contained way (the default): what a command starts never outlives it, nor the agent, and it cannot reach the
 * agent, the kernel's settings or the user's terminal, as root too.
 *
 * Every command runs under bubblewrap in a PID namespace of its own, with the host's file system as it is:
 *
 * - when the command's shell exits, the namespace's first process exits, and the kernel kills everything left in the
 *   namespace: `setsid`, `nohup`, double forks and daemons included;
 * - when the agent dies by any signal, SIGKILL included, at any moment, the namespace goes with it: the lifeline's
 *   watcher kills the group bwrap was spawned in (lifeline.ts); `--die-with-parent` (PR_SET_PDEATHSIG) alone left a
 *   gap after the spawn and during bubblewrap's setup;
 * - a sleeper inside the namespace enforces the timeout even when the agent cannot (programs.ts namespaceBackstop);
 * - a /proc of its own shows only its processes; root keeps only the capabilities of ordinary root work (kernel.ts:
 *   no CAP_SYS_ADMIN, so it cannot unmount that /proc to see the host's under it, the agent's environment, command line
 *   and open files; no CAP_NET_RAW, so it cannot capture the host's loopback traffic);
 * - /proc/sys, /sys and the like are read-only (kernel.ts);
 * - a session with no controlling terminal, a /dev of its own with its own pseudo-terminals and only the host's devices
 *   a command needs (devices.ts: no terminal, kmsg, disk, loop or fuse device), and no CAP_SYS_ADMIN, without which
 *   TIOCSTI into a terminal that is not the caller's fails: nothing reaches the user's terminal;
 * - the namespace's first process stays in the process group of the bwrap the agent started, from its spawn to its
 *   end, so an abort's kill of that group (process.ts) takes the namespace at any moment. The session is the one the
 *   process runner made for that bwrap (it starts commands detached: setsid). bubblewrap's own `--new-session` would
 *   move the namespace's first process to a session of its own, and bubblewrap sets that process's parent-death signal
 *   only after the whole setup: a Ctrl-C in between killed bwrap and left the namespace running, its command with it
 *   (test/tools/bash/bashAbort.process.test.ts). A long-lived program (`wrap`: an MCP server) is spawned detached too, and its stop
 *   kills its group (tools/mcp/stdio.ts, test/tools/mcp/mcpStop.process.test.ts).
 *
 * A process group (the plain way) is escaped by `setsid`, and a dead agent kills nothing; `PR_SET_PDEATHSIG` alone
 * (`setpriv --pdeathsig`) covers only the direct child; a cgroup is not removed when the agent dies and needs a
 * delegated hierarchy. A PID namespace has none of these gaps; it costs one namespace per command (BENCHMARKS.md).
 */
import { hostDevices } from './devices.js';
import { procReadOnlyArgs, rootCapabilityArgs } from './kernel.js';
import { isRoot, namespaceBackstop, type BackstopPrograms } from './programs.js';
import { launch, type CommandRunner } from './runner.js';
import { runInSpare, startSpare, type SpareShape } from './spare.js';

/** The argv of `command` contained, working in `cwd` (`backstop`: what the backstop is made of; none when empty). */
export function containedArgv(bwrap: string, backstop: BackstopPrograms, cwd: string, command: string, timeoutMs: number): [string, ...string[]] {
  return [...containedPrefix(bwrap, cwd), ...namespaceBackstop(backstop, timeoutMs), 'bash', '-c', command];
}

/** bubblewrap's part of the argv, up to the program it runs contained; its caller starts it detached (see the header). */
function containedPrefix(bwrap: string, cwd: string): [string, ...string[]] {
  return [
    bwrap,
    '--dev-bind', '/', '/',
    '--dev', '/dev',
    ...hostDevices().bwrapArgs,
    '--proc', '/proc',
    ...procReadOnlyArgs(),
    '--ro-bind', '/sys', '/sys',
    '--unshare-pid',
    '--die-with-parent',
    ...rootCapabilityArgs(isRoot()),
    '--chdir', cwd,
    '--',
  ];
}

export function containedRunner(bwrap: string, backstop: BackstopPrograms): CommandRunner {
  const { sleep } = backstop;
  const shape = (cwd: string, env: Record<string, string>, sleepBin: string): SpareShape => ({ prefix: containedPrefix(bwrap, cwd), cwd, env, sleepBin });
  return {
    kind: 'contained',
    run: (run) => {
      const { command, ...options } = run;
      const inSpare = sleep === undefined ? undefined : runInSpare(shape(run.cwd, run.env, sleep), command, options);
      return inSpare ?? launch(containedArgv(bwrap, backstop, run.cwd, run.command, run.timeoutMs), run);
    },
    wrap: (argv, cwd) => [...containedPrefix(bwrap, cwd), ...argv],
    // The run's first command, started ahead (spare.ts): as it would be started, but for the command, read from a pipe.
    // Only with the sleeper for its backstop: `timeout`'s clock would start with the spare, not with the command.
    ...(sleep === undefined ? {} : { prepare: ({ cwd, env, signal }) => startSpare(shape(cwd, env, sleep), signal) }),
  };
}
