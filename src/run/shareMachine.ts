/**
 * A machine with a run's own implementations that shares the state nodes of the machine it comes from. XState's
 * `machine.provide(...)` builds the whole machine again for each run: its state nodes, their transitions (each with a
 * `toJSON` closure), maps and arrays, ~20 KB a run that stays while the run lasts (bench/many.ts: many runs at once in
 * one process). An actor looks its actors, actions, guards and delays up through the machine of its snapshot
 * (`snapshot.machine.implementations`) and uses the state nodes for the structure alone, so a machine made with
 * `Object.create(machine)` and implementations of its own runs the same: the methods the machine binds to itself in
 * its constructor are bound again to the new one. test/run/shareMachine.test.ts holds XState to that.
 */
import type { AnyStateMachine } from 'xstate';

type Implementations = Partial<AnyStateMachine['implementations']>;

const BOUND = ['transition', 'getInitialSnapshot', 'getPersistedSnapshot', 'restoreSnapshot', 'start'] as const;

export function shareMachine<M extends AnyStateMachine>(machine: M, implementations: Implementations): M {
  const own = machine.implementations;
  const shared = Object.create(machine) as M & Record<(typeof BOUND)[number], unknown>;
  Object.defineProperty(shared, 'implementations', {
    // A kind the run does not give is the machine's own object, not a copy of it (a run's copies were ~0.4 KB more).
    value: {
      actors: implementations.actors ? { ...own.actors, ...implementations.actors } : own.actors,
      actions: implementations.actions ? { ...own.actions, ...implementations.actions } : own.actions,
      guards: implementations.guards ? { ...own.guards, ...implementations.guards } : own.guards,
      delays: implementations.delays ? { ...own.delays, ...implementations.delays } : own.delays,
    },
    enumerable: true,
  });
  const prototype = Object.getPrototypeOf(Object.getPrototypeOf(shared)) as Record<string, (...args: unknown[]) => unknown>;
  for (const name of BOUND) {
    const method = prototype[name];
    if (typeof method === 'function') Object.defineProperty(shared, name, { value: method.bind(shared), enumerable: true });
  }
  return shared;
}
