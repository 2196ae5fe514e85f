/**
 * Containment: what a command starts never outlives the command, nor the agent.
 *
 * Every command runs in a PID namespace of its own (bubblewrap's `--unshare-pid`), with the host
 * file system bound as it is (`--dev-bind / /`) and a /proc of its own (`--proc /proc`):
 *
 * - when the command's shell exits, the namespace's first process exits, and the kernel kills
 *   everything left in the namespace: `setsid`, `nohup`, double forks and daemons included;
 * - `--die-with-parent` ties that first process to the agent (PR_SET_PDEATHSIG): when the agent
 *   dies by any signal, SIGKILL included, the namespace goes with it;
 * - `timeout -s KILL` inside the namespace enforces the timeout (plus a second of grace) even when
 *   the agent cannot (stopped, or its event loop blocked): the kernel clock, not the agent's timer;
 * - the command's /proc shows only its own processes: the agent's environment, command line and
 *   open files (`/proc/PID/environ|cmdline|fd`) are out of its reach.
 *
 * A process group (what the tool used before) is escaped by `setsid`, and a dead agent kills
 * nothing; `PR_SET_PDEATHSIG` alone (`setpriv --pdeathsig`) covers only the direct child; a
 * cgroup is not removed when the agent dies and needs a delegated hierarchy. A PID namespace has
 * none of these gaps; it costs one namespace per command (see BENCHMARKS.md).
 *
 * Without a working bwrap, commands run as before (their own process group, killed whole on exit,
 * timeout and abort) and a warning says what is not contained.
 */
import { execFile } from 'node:child_process';
import { findExecutable } from './sandbox.js';

export type Containment =
  | { kind: 'namespace'; bwrap: string; timeout: string | undefined }
  | { kind: 'none'; reason: string; timeout: string | undefined };

/** The bwrap options that give a PID namespace of its own and nothing else. */
export const NAMESPACE_ARGS = ['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--die-with-parent'] as const;

/** The backstop fires this long after the agent's own timer should have. */
const BACKSTOP_GRACE_MS = 1000;

const probes = new Map<string, Promise<Containment>>();

/**
 * How commands are contained with the programs on `pathVar`: bwrap is looked up and tried once
 * per process (a namespace may be refused, e.g. in a container without user namespaces).
 */
export function containment(pathVar: string | undefined): Promise<Containment> {
  const key = pathVar ?? '';
  let probe = probes.get(key);
  if (probe === undefined) {
    probe = probeContainment(pathVar);
    probes.set(key, probe);
  }
  return probe;
}

async function probeContainment(pathVar: string | undefined): Promise<Containment> {
  const timeout = findExecutable('timeout', pathVar);
  const bwrap = findExecutable('bwrap', pathVar);
  if (bwrap === undefined) {
    return { kind: 'none', timeout, reason: "'bwrap' was not found on PATH (Debian/Ubuntu: apt-get install bubblewrap)" };
  }
  const refused = await new Promise<string | null>((resolve) => {
    execFile(bwrap, [...NAMESPACE_ARGS, '--', 'true'], { timeout: 10_000 }, (err, _out, stderr) =>
      resolve(err === null ? null : (stderr.trim() || err.message)),
    );
  });
  if (refused !== null) return { kind: 'none', timeout, reason: `bwrap cannot make a PID namespace here: ${refused}` };
  return { kind: 'namespace', bwrap, timeout };
}

/** `timeout -s KILL SECONDS` before the shell, when coreutils' timeout is there. */
export function backstop(timeoutBin: string | undefined, timeoutMs: number): string[] {
  if (timeoutBin === undefined) return [];
  return [timeoutBin, '-s', 'KILL', `${(timeoutMs + BACKSTOP_GRACE_MS) / 1000}s`];
}

/** The argv of `command` in a namespace of its own, working in `cwd`. */
export function namespaceArgv(bwrap: string, timeoutBin: string | undefined, cwd: string, command: string, timeoutMs: number): [string, ...string[]] {
  return [bwrap, ...NAMESPACE_ARGS, '--chdir', cwd, '--', ...backstop(timeoutBin, timeoutMs), 'bash', '-c', command];
}

let warned = false;

/** Says once per process that commands are not contained, and why. */
export function warnUncontained(reason: string): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    `bash tool: commands are not contained: ${reason}. A process a command starts with setsid, or one still ` +
      'running when the agent is killed, can outlive it, and commands can read the agent\'s environment in /proc.',
    { code: 'AGENTLOOP_UNCONTAINED' },
  );
}
