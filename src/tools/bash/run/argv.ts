/**
 * The program a command runs as: the sandbox (bubblewrap with a read-only system), a PID namespace
 * of its own (contain.ts), or, when neither is wanted or possible, bash alone.
 */
import { backstop, containment, namespaceArgv, warnUncontained } from './contain.js';
import { sandboxArgv, type SandboxView } from './sandbox.js';

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
  /** For the sandbox: what it hides and shows (the tool's environment, more paths). */
  view?: SandboxView;
}

/** Looks bwrap up and tries it now (once per process), rather than at the first command. */
export function prepareArgv(o: Pick<ArgvOptions, 'sandbox' | 'contain' | 'pathVar'>): void {
  if (o.sandbox !== null || o.contain) containment(o.pathVar).catch(() => undefined);
}

export async function commandArgv(o: ArgvOptions): Promise<[string, ...string[]]> {
  if (o.sandbox !== null) {
    const { timeout } = await containment(o.pathVar);
    return sandboxArgv(o.sandbox, o.cwd, o.command, backstop(timeout, o.timeoutMs), o.view);
  }
  if (!o.contain) return ['bash', '-c', o.command];
  const how = await containment(o.pathVar);
  if (how.kind === 'namespace') return namespaceArgv(how.bwrap, how.timeout, o.cwd, o.command, o.timeoutMs);
  warnUncontained(how.reason);
  const timeout = backstop(how.timeout, o.timeoutMs);
  return timeout.length === 0 ? ['bash', '-c', o.command] : [timeout[0] as string, ...timeout.slice(1), 'bash', '-c', o.command];
}
