/**
 * The program a command runs as: the sandbox (bubblewrap with a read-only system), a PID namespace
 * of its own (contain.ts), or, when neither is wanted or possible, bash alone.
 */
import { backstop, containment, namespaceArgv, warnUncontained } from './contain.js';
import { sandboxArgv } from './sandbox.js';

export interface ArgvOptions {
  /** The bwrap path when the sandbox is on, else null. */
  sandbox: string | null;
  /** Contain commands in a PID namespace when not sandboxed. */
  contain: boolean;
  /** Where `bwrap` and `timeout` are looked up. */
  pathVar: string | undefined;
  cwd: string;
  command: string;
  timeoutMs: number;
  /** For the sandbox: the environment the command gets (its HOME, AGENTLOOP_HOME). */
  env?: Readonly<Record<string, string | undefined>>;
}

export async function commandArgv(o: ArgvOptions): Promise<[string, ...string[]]> {
  if (o.sandbox !== null) {
    const { timeout } = await containment(o.pathVar);
    return sandboxArgv(o.sandbox, o.cwd, o.command, backstop(timeout, o.timeoutMs));
  }
  if (!o.contain) return ['bash', '-c', o.command];
  const how = await containment(o.pathVar);
  if (how.kind === 'namespace') return namespaceArgv(how.bwrap, how.timeout, o.cwd, o.command, o.timeoutMs);
  warnUncontained(how.reason);
  const timeout = backstop(how.timeout, o.timeoutMs);
  return timeout.length === 0 ? ['bash', '-c', o.command] : [timeout[0] as string, ...timeout.slice(1), 'bash', '-c', o.command];
}
