/**
 * The plain way: bash in a process group of its own (process.ts), killed whole on exit, timeout and abort, and when the
 * agent dies (lifeline.ts). A process a command starts with `setsid` escapes the group and outlives both; the
 * command sees the host's processes in /proc and the host's /dev. Used when asked (`contain: false`), or, with a
 * warning, where no namespace can be made (choose.ts): then with `timeout -s KILL` before the shell, so that the
 * command dies at its timeout even when the agent is stopped. As root, util-linux's `setpriv` (when on the PATH) leaves
 * the command the capabilities of the contained way only (kernel.ts: no CAP_NET_RAW, CAP_SYS_ADMIN, ...), as it does
 * for an MCP server started this way.
 */
import { readFileSync } from 'node:fs';
import { rootBoundingSet } from './kernel.js';
import { backstop, isRoot } from './programs.js';
import { launch, type CommandRun, type CommandRunner } from './runner.js';

export function plainRunner(timeoutBin?: string, setprivBin?: string): CommandRunner {
  const drop = (): string[] => (setprivBin !== undefined && isRoot() && canDropCapabilities() ? dropCapabilities(setprivBin) : []);
  return {
    kind: 'plain',
    run: (run: CommandRun) => launch(['bash', '-c', run.command], run, [...drop(), ...backstop(timeoutBin, run.timeoutMs)]),
    wrap: (argv) => [...drop(), ...argv] as [string, ...string[]],
  };
}

/** setpriv's argv that runs what follows with root's capabilities cut down as the other ways cut them. */
export function dropCapabilities(setpriv: string): string[] {
  return [setpriv, '--no-new-privs', '--bounding-set', rootBoundingSet(), '--inh-caps', '-all', '--'];
}

let setpcap: boolean | undefined;

/** Whether this process holds CAP_SETPCAP (bit 8 of CapEff), without which setpriv could not cut the bounding set. */
function canDropCapabilities(): boolean {
  if (setpcap === undefined) {
    try {
      const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '0';
      setpcap = (BigInt(`0x${hex}`) & (1n << 8n)) !== 0n;
    } catch {
      setpcap = false;
    }
  }
  return setpcap;
}
