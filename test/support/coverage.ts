/**
 * Which transitions of the machine definition a run took, read from the events the machine emits
 * (its public `emit` API, core/events.ts), not from XState's private inspection fields.
 *
 * The machine announces every state it enters (`transition`, with the event that led there) and
 * every branch a choice takes (`decision`: at once, or on the event that ends a rest in it);
 * targetless handlers show as `tool_use`, `tool_start` and `tool_result`. A step is matched to the definition by its event (or guard), a source that is
 * the state it left or one of its ancestors, and a target that is the state entered or one of its
 * ancestors.
 */
import type { AnyStateMachine } from 'xstate';
import type { MachineEvent } from '../../src/core/events.js';
import { listTransitions, readableEvent, type TransitionInfo } from '../../src/diagram/transitions.js';

interface Step {
  from: string;
  /** A readable event (`done: model`, `TOOLS_DONE`) or `always`. */
  event: string;
  guard?: string;
  to?: string;
}

/** Dotted ids (below the root) of every state node, by their own key. */
function pathsByKey(machine: AnyStateMachine): Map<string, string> {
  const paths = new Map<string, string>();
  const visit = (node: { key: string; id: string; states: Record<string, unknown> }, path: string) => {
    for (const [key, child] of Object.entries(node.states)) {
      const childPath = path ? `${path}.${key}` : key;
      paths.set(key, childPath);
      visit(child as typeof node, childPath);
    }
  };
  visit(machine.root as unknown as { key: string; id: string; states: Record<string, unknown> }, '');
  return paths;
}

/** `a` is `b` or one of its ancestors ('' is the root). */
const covers = (a: string, b: string) => a === '' || a === b || b.startsWith(`${a}.`);

function stepsOf(events: readonly MachineEvent[], paths: Map<string, string>): Step[] {
  const steps: Step[] = [];
  const path = (key: string) => paths.get(key) ?? key;
  let at = '';
  let pending: Array<{ state: string; guard: string; target: string }> = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as MachineEvent;
    if (e.type === 'decision') {
      pending.push(e);
      continue;
    }
    if (e.type === 'tool_use') steps.push({ from: at, event: 'TOOL_USE_READY' });
    if (e.type === 'tool_start') steps.push({ from: at, event: 'TOOL_STARTED' });
    if (e.type === 'tool_result') {
      const next = events[i + 1];
      const completesSet = next?.type === 'transition' && next.event === 'TOOLS_DONE';
      if (!completesSet) steps.push({ from: at, event: 'TOOL_RESULT' });
    }
    if (e.type !== 'transition') continue;
    const event = readableEvent(e.event);
    let from = at;
    for (const d of pending) {
      const choice = path(d.state);
      // A choice the machine rested in (appendingResults) takes its branch on the event; one it passes through, at once.
      const rested = choice === at && from === at;
      if (choice !== from) steps.push({ from, event, to: choice });
      steps.push({ from: choice, event: rested ? event : 'always', guard: d.guard, to: path(d.target) });
      from = path(d.target);
    }
    // After decisions, `from` is where the last one led: the state entered is it or inside it.
    if (pending.length === 0) steps.push({ from, event, to: path(e.state) });
    pending = [];
    at = path(e.state);
  }
  return steps;
}

function matches(t: TransitionInfo, step: Step): boolean {
  if (t.event !== step.event) return false;
  if (step.guard !== undefined && (t.guard ?? 'else') !== step.guard) return false;
  if (!covers(t.source === 'agent' ? '' : t.source, step.from)) return false;
  if (step.to === undefined) return t.targets.length === 0;
  return t.targets.some((target) => covers(target, step.to as string));
}

/** Keys (`listTransitions`) of the transitions taken by runs whose emitted events are given. */
export function takenTransitions(machine: AnyStateMachine, runs: ReadonlyArray<readonly MachineEvent[]>): Set<string> {
  const all = listTransitions(machine);
  const paths = pathsByKey(machine);
  const taken = new Set<string>();
  for (const events of runs) {
    for (const step of stepsOf(events, paths)) {
      // The innermost matching definition is the one XState takes.
      const found = all.filter((t) => matches(t, step)).sort((a, b) => b.source.length - a.source.length)[0];
      if (found) taken.add(found.key);
    }
  }
  return taken;
}
