/**
 * Chooses how the bash tool runs its commands, once per tool (runner.ts lists the ways), and tries each way that
 * needs the kernel's help once per process before trusting it (a namespace may be refused, e.g. in a container without
 * user namespaces): bubblewrap first, then util-linux's unshare, then, with a warning, bash alone. That bubblewrap
 * worked is kept for the user's next process (verdict.ts), which then starts no probe before its first command.
 */
import { spawn } from 'node:child_process';
import { containedArgv, containedRunner } from './contained.js';
import { plainRunner } from './plain.js';
import { backstopPrograms, findExecutable } from './programs.js';
import type { CommandRunner } from './runner.js';
import { sandboxRunner, type SandboxSettings } from './sandbox.js';
import { unshareArgv, unshareRunner } from './unshare.js';
import { keepVerdict, keptVerdict, verdictKey } from './verdict.js';

export interface RunnerWanted {
  /** The sandbox's settings when `--sandbox` is on (bubblewrap was found at creation). */
  sandbox?: Omit<SandboxSettings, 'backstop'>;
  /** Contain commands in a PID namespace when not sandboxed. */
  contain: boolean;
  /** Where the programs are looked up: the PATH commands get. */
  pathVar: string | undefined;
}

export function chooseRunner(wanted: RunnerWanted): Promise<CommandRunner> {
  if (wanted.sandbox !== undefined) return Promise.resolve(sandboxRunner({ ...wanted.sandbox, backstop: backstopPrograms(wanted.pathVar) }));
  if (!wanted.contain) return Promise.resolve(plainRunner(undefined, findExecutable('setpriv', wanted.pathVar)));
  return containment(wanted.pathVar);
}

const probes = new Map<string, Promise<CommandRunner>>();

/** The contained way that works with the programs on `pathVar`, tried once per process. */
function containment(pathVar: string | undefined): Promise<CommandRunner> {
  const key = pathVar ?? '';
  let probe = probes.get(key);
  if (probe === undefined) {
    probe = probeContainment(pathVar);
    probes.set(key, probe);
  }
  return probe;
}

async function probeContainment(pathVar: string | undefined): Promise<CommandRunner> {
  const backstop = backstopPrograms(pathVar);
  const { timeout } = backstop;
  const why: string[] = [];
  const bwrap = findExecutable('bwrap', pathVar);
  if (bwrap === undefined) why.push("'bwrap' was not found on PATH (Debian/Ubuntu: apt-get install bubblewrap)");
  else {
    const probe = containedArgv(bwrap, {}, '/', 'true', 10_000);
    const key = verdictKey(probe);
    if (keptVerdict(key)) return containedRunner(bwrap, backstop);
    const refused = await refusal(probe);
    if (refused === null) {
      keepVerdict(key);
      return containedRunner(bwrap, backstop);
    }
    why.push(`bwrap cannot make a PID namespace here: ${refused}`);
  }
  const unshare = findExecutable('unshare', pathVar);
  const setpriv = findExecutable('setpriv', pathVar);
  if (unshare === undefined || setpriv === undefined) why.push("util-linux's 'unshare' and 'setpriv' were not found on PATH");
  else {
    const refused = await refusal(unshareArgv({ unshare, setpriv, timeout: undefined }, 'true', 10_000));
    if (refused === null) return unshareRunner({ unshare, setpriv, timeout });
    why.push(`unshare cannot make a PID namespace here: ${refused}`);
  }
  warnUncontained(why.join('; '));
  return plainRunner(timeout, setpriv);
}

/**
 * Runs `argv` (a `true` command); null when it worked, else what it said. Its stdin is /dev/null, as a command's is:
 * on a socket (Node's 'pipe'), Debian's bash takes itself for a remote shell and, when SHLVL is unset (env -i, a
 * service), reads ~/.bashrc, whose time (or hang) then decided the probe.
 */
function refusal(argv: [string, ...string[]]): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd: '/', stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.once('error', (error) => resolve(error.message));
    child.once('close', (code, signal) => resolve(code === 0 ? null : stderr.trim() || `exited with ${code ?? signal}`));
  });
}

let warned = false;

/** Says once per process that commands are not contained, and why. */
function warnUncontained(reason: string): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    `bash tool: commands are not contained: ${reason}. A process a command starts with setsid, or one still ` +
      "running when the agent is killed, can outlive it; commands can read the agent's environment in /proc and write " +
      "to the user's terminal, and as root write the kernel's settings and type into that terminal.",
    { code: 'AGENTLOOP_UNCONTAINED' },
  );
}
