/**
 * What `agentloop submit` checks around Restate's answer: a reused `--idempotency-key` must come with the request it
 * started (Restate answers a key it knows with its earlier run, whatever the request), and `--wait` gives up, as
 * `result` would say it, when no worker answers the run.
 */
import { isDeepStrictEqual } from 'node:util';
import { readSession, submittedRequest, type PendingRun } from '../../durable/admin.js';
import { attachRun } from '../../durable/ingress.js';
import { SERVICE_NAME, type DurableRunResult } from '../../durable/protocol.js';
import type { PermissionMode } from '../../permissions/modes.js';
import { refusesBypassMode } from '../../permissions/root.js';
import { checkRules as checkRuleTexts } from '../../permissions/gate.js';
import { allBuiltInTools } from '../../run/defaultTools.js';
import { UsageError } from '../commandLine/argValues.js';

/**
 * The root rule (permissions/root.ts, the gate's) for `worker` and `submit`: bypassPermissions as root only where
 * IS_SANDBOX=1 says the machine is a sandbox. The line that refuses it, or undefined. (The worker that runs a run
 * judges it again by its own user and environment: durable/permissions.ts.)
 */
export function bypassRefusal(mode: PermissionMode | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (!refusesBypassMode(mode, env)) return undefined;
  return '--permission-mode bypassPermissions cannot be used with root/sudo privileges for security reasons (unless IS_SANDBOX=1)';
}

/** Throws a UsageError (one line) for a rule of `--allowedTools` / `--disallowedTools` that does not parse. */
export function checkRules(allowed: string[] | undefined, disallowed: string[] | undefined): void {
  for (const [flag, rules] of [['--allowedTools', allowed], ['--disallowedTools', disallowed]] as const) {
    try {
      checkRuleTexts(rules ?? [], allBuiltInTools());
    } catch (error) {
      throw new UsageError(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/**
 * Why the run that `key` started before cannot be the one asked for now: its request was another. Undefined when it
 * was the same, or when Restate no longer keeps it (nothing to compare: the earlier run is taken as it is).
 */
export async function reusedKeyProblem(admin: string, invocationId: string, key: string, request: unknown): Promise<string | undefined> {
  const earlier = await submittedRequest({ admin }, invocationId).catch(() => undefined);
  if (earlier === undefined || isDeepStrictEqual(earlier, JSON.parse(JSON.stringify(request)))) return undefined;
  return `--idempotency-key ${key} already started a run with another request (invocation ${invocationId}): give this one a key of its own, or send the same request again to find that run`;
}

/** How long `submit --wait` waits for a worker to take a run that none answers (backing-off all along) before it stops waiting. */
export const NO_WORKER_MS = 10_000;

/** How often the wait reads where the run stands. */
const POLL_MS = 1000;

/**
 * Resolves with the run that no worker answers (its session's first pending run, backing off for `noWorkerMs` in a
 * row, or paused by Restate); never while a worker takes it. Stops when `signal` is aborted.
 */
async function noWorker(admin: string, sessionId: string, noWorkerMs: number, signal: AbortSignal): Promise<PendingRun | undefined> {
  let since: number | undefined;
  while (!signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const view = await readSession({ admin, timeoutMs: 5000 }, SERVICE_NAME, sessionId).catch(() => undefined);
    const run = view?.state === 'running' ? view.run : undefined;
    if (run?.status === 'paused') return run;
    if (run?.status !== 'backing-off') since = undefined;
    else if (Date.now() - (since ??= Date.now()) >= noWorkerMs) return run;
  }
  return undefined;
}

/** The run's result, or the pending run that no worker answers. */
export async function awaitRun(
  target: { restate: string; admin: string },
  invocationId: string,
  sessionId: string,
  noWorkerMs = NO_WORKER_MS,
): Promise<{ result: DurableRunResult } | { stuck: PendingRun }> {
  const stop = new AbortController();
  const attached = attachRun(target.restate, invocationId, stop.signal).then((result) => ({ result }));
  const stuck = noWorker(target.admin, sessionId, noWorkerMs, stop.signal).then((run) => (run ? { stuck: run } : new Promise<never>(() => {})));
  try {
    return await Promise.race([attached, stuck]);
  } finally {
    stop.abort();
    attached.catch(() => {}); // the wait given up rejects: nobody reads it
  }
}
