/**
 * What a worker gives every run it serves, a session's (agentSession.ts) or a subagent's (agentChild.ts): its settings,
 * Restate's timeouts and retries of a run, and the object's state as the records write it (redacted).
 */
import type * as restate from '@restatedev/restate-sdk';
import type { ModelCall } from '../core/model.js';
import type { Redactor } from '../core/redact.js';
import type { Tool } from '../core/tool.js';
import type { RunTracing } from '../otel/runSpans.js';
import type { RecordState } from './records.js';
import type { WorkerPermissions } from './permissions.js';

/** What every run of a worker uses. */
export interface WorkerSettings {
  /** The model when a request names none (MODEL_ID). */
  model: string;
  modelCall: ModelCall;
  /** The tools of every run, or (as the CLI's worker gives them: run/defaultTools.ts) the tools of a session's run. */
  tools: Tool[] | ((sessionId: string) => Tool[]);
  /** Working directory of the tools. */
  cwd: string;
  /** Traces each run (run/runAgent.ts `tracing`); the parent of a run's span comes from its invocation (`runParent`). */
  tracing?: Omit<RunTracing, 'parent'>;
  /** What no record, result, message or journal entry may hold (default: the credentials of the environment, as runAgent's). */
  redactor?: Redactor;
  /** The floor of every run's permissions: deny rules and the most permissive mode (permissions.ts). Without a mode a
   *  run's calls are judged in its own, `default` when it names none: what is not read-only nor allowed waits for approval. */
  permissions?: WorkerPermissions;
}

/**
 * How long a run may show no progress before Restate takes it from its worker (a frozen or cut-off
 * worker): it asks the handler to suspend after `inactivityTimeout`, and aborts the attempt
 * `abortTimeout` later (and Restate drains the stream 5 s more); the run is then retried. A model call or a tool
 * that runs long journals a heartbeat every 3 s (steps.ts), so only a worker that stopped
 * answering goes quiet that long. Sent to Restate when the worker registers (service discovery).
 *
 * Short, because the retry goes to the same address: a proxy without health checks may hand it to the frozen worker
 * again, and each such attempt costs these timeouts once more (20 s, not the 45 s of 30 + 10: failover.test.ts).
 */
export const RUN_TIMEOUTS = { inactivityTimeout: 10_000, abortTimeout: 5_000 };

/**
 * Retries of a run whose attempt failed (its worker died, no worker answers): soon at first, then
 * every 10 s, for about a day; then Restate pauses the run (its UI or CLI resumes it).
 */
export const RUN_RETRIES = { initialInterval: 250, exponentiationFactor: 2, maxInterval: 10_000, maxAttempts: 8640 };

/** The object's state, every value set redacted. */
export function redactedState(ctx: restate.ObjectContext, redactor: Redactor): RecordState {
  return { get: (name) => ctx.get(name), set: (name, value) => ctx.set(name, redactor.value(value)) };
}

