/**
 * Long journalled steps with a heartbeat. Restate takes a run away from a worker that shows no
 * progress for the service's inactivity timeout (agentSession.ts): that is how a frozen or cut-off
 * worker loses its runs. A model call or a tool may take minutes, so such a step is not one
 * `ctx.run` but an action started in the worker and a series of journalled polls: each poll waits
 * for the action at most `HEARTBEAT_MS` and journals `{ done: false }` or the outcome. The polls
 * are the heartbeat; a replay reads them from the journal in the same order, so the steps are the
 * same whatever the timing was.
 *
 * An action outlives the attempt that started it: when Restate retries the invocation on the same
 * worker (its server restarted, say), the next poll finds the action still going and waits on. On
 * another worker the poll finds nothing, and the step's `lost` policy answers (run the action
 * again, or give up on it).
 */
import { setTimeout as delay } from 'node:timers/promises';

/** What a durable run needs of Restate's context. */
export interface Journal {
  /** A journalled step: a replay gets the recorded value without running `action`. */
  run<T>(name: string, action: () => Promise<T>): PromiseLike<T>;
  /** A journalled wait: a replay that finds it elapsed does not wait again. */
  sleep(ms: number): PromiseLike<void>;
  /** The invocation's id: the same in every attempt of the run. */
  readonly id: string;
}

/** How often a running action is journalled as still running: well within the inactivity timeout (agentSession.ts RUN_TIMEOUTS). */
export const HEARTBEAT_MS = 3_000;

/** An action's outcome is kept this long for a later attempt on this worker to take. */
const KEEP_UNCLAIMED_MS = 15 * 60_000;

type Poll<T> = { done: false } | { done: true; at: number; value: T };

/** Actions in flight in this process, by invocation and step. */
const actions = new Map<string, Promise<unknown>>();

function launch<T>(key: string, action: () => Promise<T>): Promise<T> {
  const promise = action();
  actions.set(key, promise);
  const forget = () => setTimeout(() => actions.get(key) === promise && actions.delete(key), KEEP_UNCLAIMED_MS).unref();
  promise.then(forget, forget);
  return promise;
}

/** The action's value, or `undefined` when it is still running after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | undefined> {
  const timer = new AbortController();
  const timeout = delay(ms, undefined, { signal: timer.signal }).catch(() => undefined);
  try {
    return await Promise.race([promise.then((value) => ({ value })), timeout]);
  } finally {
    timer.abort();
  }
}

export interface LongStep<T> {
  /** The journal entries' name (every poll of the step has it). */
  name: string;
  /** The action; it must not reject (a failure is a value). */
  action: () => Promise<T>;
  /**
   * When a poll finds no action in this process (none started yet, or it ran on a worker that
   * died): start it, or answer this value instead (it may have run, and must not run twice).
   */
  ifAbsent: 'start' | { value: T };
}

/**
 * Counts the long steps of one attempt: with the invocation id, the count names an action the same
 * way in every attempt (a replay meets the steps in the same order).
 */
export function longSteps(journal: Journal, heartbeatMs = HEARTBEAT_MS) {
  let count = 0;
  return async function longStep<T>(step: LongStep<T>): Promise<{ at: number; value: T }> {
    const key = `${journal.id}#${count++}`;
    for (;;) {
      const poll = await journal.run<Poll<T>>(step.name, async () => {
        let action = actions.get(key) as Promise<T> | undefined;
        if (!action) {
          if (step.ifAbsent !== 'start') return { done: true, at: Date.now(), value: step.ifAbsent.value };
          action = launch(key, step.action);
        }
        const outcome = await within(action, heartbeatMs);
        if (!outcome) return { done: false };
        actions.delete(key);
        return { done: true, at: Date.now(), value: outcome.value };
      });
      if (poll.done) return poll;
    }
  };
}

/** How many actions this process holds (for tests). */
export function actionsInFlight(): number {
  return actions.size;
}
