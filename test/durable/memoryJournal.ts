/**
 * An in-memory journal that replays as Restate's does, for the journalled actors (src/durable/journal.ts):
 * an entry that was recorded returns its value without running its action; the first entry that
 * was not runs. A crash is an attempt abandoned while an action runs (its entry is never recorded).
 * A replay that meets another step than the journal holds is a mismatch (Restate's RT0016): the
 * attempt stops there.
 */
import { expect } from 'vitest';
import type { ModelCall } from '../../src/core/model.js';
import type { Tool } from '../../src/core/tool.js';
import { durableSteps, journalledModel, journalledTools, journalTimers, type Journal } from '../../src/durable/journal.js';
import { runAgent, type RunResult } from '../../src/run/runAgent.js';

export interface Entry {
  name: string;
  value: unknown;
}

export interface AttemptOptions {
  /** At this entry the attempt starts the action and never finishes (its worker died). */
  crashAt?: number;
  /** The worker process: actions started by an attempt are found again only on the same worker. */
  worker?: string;
  /** Milliseconds between heartbeats of long steps. */
  heartbeatMs?: number;
}

let invocations = 0;

/** A run's journal, shared by its attempts. */
export function invocation() {
  const id = `inv-${++invocations}`;
  return { attempt: (recorded: Entry[], options: AttemptOptions = {}) => attempt(id, recorded, options) };
}

/** One attempt: replays `recorded`, then records. */
export function attempt(id: string, recorded: Entry[], options: AttemptOptions = {}) {
  const entries = [...recorded];
  const crashAt = options.crashAt ?? Number.POSITIVE_INFINITY;
  let index = 0;
  let crashNow: (settled: Promise<void>) => void = () => {};
  /** Resolves once the attempt has crashed and the action it was running has settled. */
  const crash = new Promise<void>((resolve) => (crashNow = resolve));
  const mismatches: string[] = [];
  let mismatched: (reason: string) => void = () => {};
  const mismatch = new Promise<never>((_, reject) => (mismatched = (reason) => reject(new Error(reason))));
  mismatch.catch(() => {});
  const never = <T>() => new Promise<T>(() => {});
  function entry<T>(name: string, action: () => Promise<T>): Promise<T> {
    const i = index++;
    const old = entries[i];
    if (old) {
      if (old.name !== name) {
        mismatches.push(`entry ${i}: journal has "${old.name}", the replay meets "${name}"`);
        mismatched(mismatches[0] as string);
        return never<T>();
      }
      return Promise.resolve(structuredClone(old.value) as T);
    }
    if (i >= crashAt) {
      crashNow(action().then(() => undefined, () => undefined));
      return never<T>(); // the worker died here
    }
    return action().then((result) => {
      const value = JSON.parse(JSON.stringify(result ?? null)) as T;
      entries.push({ name, value });
      return value;
    });
  }
  const journal: Journal = {
    id: `${id} on ${options.worker ?? 'worker-1'}`,
    run: entry,
    // Time is simulated: the first execution records the wait without waiting.
    sleep: (ms) => entry(`sleep ${ms} ms`, async () => ms).then(() => undefined),
  };
  const steps = durableSteps(journal, { now: 0 }, options.heartbeatMs);
  return { journal, steps, entries, crash, mismatches, mismatch };
}

export type Attempt = ReturnType<typeof attempt>;

export const toolResults = (result: RunResult) =>
  result.context.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.flatMap((b) => (b.type === 'tool_result' ? [b] : []))));

/** Runs an attempt to its end, or to its first mismatch (which rejects). */
export const run = (a: Attempt, model: ModelCall, tools: Tool[], options: { maxRetries?: number; cwd?: string } = {}): Promise<RunResult> =>
  Promise.race([
    runAgent('go', {
      model: 'm',
      modelCall: journalledModel(a.steps, model),
      tools: journalledTools(a.steps, tools),
      clock: journalTimers(a.journal),
      cwd: '/',
      seed: 1,
      ...options,
    }),
    a.mismatch,
  ]);

/**
 * Runs until the attempt crashes (its run never ends) and the action it was running has settled,
 * giving what it recorded. Waits for that event, however long the machine takes to get there.
 */
export async function crashed(first: Attempt, runIt: () => Promise<unknown>): Promise<Entry[]> {
  const ended = runIt().then(
    () => 'the run ended before its worker died',
    (error: unknown) => `the run failed before its worker died: ${String(error)}`,
  );
  const outcome = await Promise.race([first.crash.then(() => 'crashed'), ended]);
  expect(outcome).toBe('crashed');
  return first.entries;
}
