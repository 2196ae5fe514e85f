/**
 * Which edges of the machine diagram led from one step to the next: the event's edge out of the
 * state the machine was in, then one branch per choice passed through. A `decision` record names
 * the branch that fired; for a transcript without them the branch is found by search, the exit
 * reason telling apart branches that end in the same state.
 */
import { readableEvent } from '../../diagram/transitions.js';
import type { MachineEdge, MachineGraph } from '../../diagram/graph.js';

export interface Decision {
  /** The choice state (its key). */
  state: string;
  /** The guard that fired, or `else`. */
  guard: string;
  target: string;
}

export interface StepEnds {
  /** Key of the state of the previous step; null for the first step of a run. */
  from: string | null;
  to: string;
  /** The XState event type of the transition (`xstate.done.actor.model`). */
  event: string;
  decisions: Decision[];
  exitReason?: string | null;
}

const leafOf = (edge: MachineEdge) => edge.targetKey;

/** The chain of initial edges from the machine's start (the first step of a run), to a state or a choice (`checkingContext`). */
function startPath(graph: MachineGraph): MachineEdge[] {
  const path: MachineEdge[] = [];
  let at = graph.edges.find((e) => e.source === `${graph.id}.(initial)`);
  while (at && path.length < 8) {
    path.push(at);
    const next = graph.edges.find((e) => e.source === `${at?.target}.(initial)`);
    at = next;
  }
  return path;
}

/** Shortest path from `from` to `to`: the first edge by event, the rest through choices. */
function search(graph: MachineGraph, from: string, to: string, event: string | null, exitReason?: string | null): MachineEdge[] {
  const found: MachineEdge[][] = [];
  let frontier: Array<{ at: string; path: MachineEdge[] }> = [{ at: from, path: [] }];
  for (let depth = 0; depth < 4 && found.length === 0; depth++) {
    const next: typeof frontier = [];
    for (const { at, path } of frontier) {
      for (const edge of graph.edges) {
        if (!edge.sourceKeys.includes(at) || path.includes(edge)) continue;
        if (depth === 0 ? event !== null && edge.event !== event : edge.event !== 'always') continue;
        const route = [...path, edge];
        if (leafOf(edge) === to) found.push(route);
        else next.push({ at: leafOf(edge), path: route });
      }
    }
    frontier = next;
  }
  if (found.length === 0) return event === null ? [] : search(graph, from, to, null, exitReason);
  const byExit = exitReason ? found.filter((p) => p.at(-1)?.actions.includes(`exit(${exitReason})`)) : [];
  return (byExit.length ? byExit : found)[0] ?? [];
}

/** Ids of the edges taken into a step, in order. */
export function edgesTaken(graph: MachineGraph, ends: StepEnds): string[] {
  // The first step: the initial edges, then the branches of the choices they lead to (`checkingContext`), if any.
  const start = ends.from === null ? startPath(graph) : [];
  if (ends.from === null && (start.at(-1)?.targetKey === ends.to || start.length === 0)) return start.at(-1)?.targetKey === ends.to ? start.map((e) => e.id) : [];
  const event = readableEvent(ends.event);
  const decisions = [...ends.decisions];
  const path: MachineEdge[] = [...start];
  let at = ends.from ?? (start.at(-1)?.targetKey as string);
  for (let hop = start.length > 0 ? 1 : 0; hop < 8 && (hop === 0 || at !== ends.to); hop++) {
    const decision = decisions[0];
    let edge: MachineEdge | undefined;
    if (decision && decision.state === at) {
      decisions.shift();
      // A choice's branch, by its guard: at once (`always`), or on the event that ends a rest in it (appendingResults).
      edge = graph.edges.find((e) => e.guard === decision.guard && e.sourceKeys.includes(at));
    } else if (hop === 0) {
      // Several edges may leave on one event (guarded, e.g. `done: model`): the one that leads to
      // the next decision's choice or to the step itself; otherwise the search below decides.
      const candidates = graph.edges.filter((e) => e.event === event && e.sourceKeys.includes(at));
      const toward = decision?.state ?? ends.to;
      edge = candidates.length === 1 ? candidates[0] : candidates.find((e) => leafOf(e) === toward);
    }
    if (!edge) return [...path, ...search(graph, at, ends.to, hop === 0 ? event : 'always', ends.exitReason)].map((e) => e.id);
    path.push(edge);
    at = leafOf(edge);
  }
  return at === ends.to ? path.map((e) => e.id) : [];
}
