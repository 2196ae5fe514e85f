/**
 * The machine as a graph to draw, read from its definition (a walk of `machine.root`): one node
 * per state and one edge per branch of every transition, so each guard has its own edge and
 * label. Layout (layout.ts) and drawing (svg.ts) start from here, for the README's SVG and the
 * viewer alike.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { describeTransition, stateNodes, type TransitionInfo, type TransitionLike } from './transitions.js';

/**
 * - `machine`: the machine itself, drawn as the outer frame (its own transitions leave from it);
 * - `compound`: a state with children, drawn as a frame around them;
 * - `choice`: a state left at once by eventless transitions (the machine never rests in it);
 * - `initial`: the dot a machine or compound state starts from.
 */
export type NodeKind = 'machine' | 'compound' | 'state' | 'choice' | 'final' | 'initial';

export interface MachineNode {
  /** Dotted path below the machine (`turn.callingModel`); the machine's id for the machine. */
  id: string;
  /** The state's own key, as the transcript names it (`callingModel`). */
  key: string;
  kind: NodeKind;
  /** Id of the enclosing machine or compound node (null for the machine). */
  parent: string | null;
  /** Left at once by an unguarded eventless transition: passed through, never rested in. */
  transient: boolean;
  /** What the state does while the machine is in it: `invoke callModel`, `on TOOL_STARTED`. */
  rows: string[];
}

export interface MachineEdge {
  /** Stable id: the transition's key (source, event, guard, target). */
  id: string;
  source: string;
  target: string;
  /** Keys of the leaf states this edge can be taken from (every leaf below a frame). */
  sourceKeys: string[];
  /** Key of the leaf state it enters (a compound's initial leaf). */
  targetKey: string;
  /** Readable event: `ABORT`, `done: model`, `after: retryDelay`; `always` for eventless ones. */
  event: string;
  /** The guard's name; `else` for the unguarded last branch of a guarded choice; null when unguarded. */
  guard: string | null;
  actions: string[];
  /** First line of the label: event and guard. */
  label: string;
  /** The lines below: the actions, one a line (`/ recordReply`); empty when there are none. */
  details: string[];
}

export interface MachineGraph {
  id: string;
  nodes: MachineNode[];
  edges: MachineEdge[];
}

function shortId(node: AnyStateNode): string {
  return node.id.split('.').slice(1).join('.') || node.id;
}

function isChoice(node: AnyStateNode): boolean {
  return (node.always?.length ?? 0) > 0 && node.transitions.size === 0 && node.entry.length === 0 && node.invoke.length === 0;
}

function kindOf(node: AnyStateNode, root: AnyStateNode): NodeKind {
  if (node === root) return 'machine';
  if (Object.keys(node.states).length > 0) return 'compound';
  if (node.type === 'final') return 'final';
  return isChoice(node) ? 'choice' : 'state';
}

function actionName(action: unknown): string | null {
  // XState's own actions (the raise/cancel behind `after`) are not the machine's steps.
  if (typeof action === 'function' && 'type' in action && String(action.type).startsWith('xstate.')) return null;
  const name = describeTransition({ source: { id: '' }, eventType: 'x', actions: [action] }).actions[0];
  return name && name !== 'inline' ? name : null;
}

/** What a state does while the machine is in it: invoked actors, entry/exit actions, targetless handlers. */
function rowsOf(node: AnyStateNode, targetless: TransitionInfo[]): string[] {
  const rows: string[] = [];
  const entry = node.entry.map(actionName).filter((a): a is string => a !== null);
  const exit = node.exit.map(actionName).filter((a): a is string => a !== null);
  for (const invoke of node.invoke) rows.push(`invoke ${typeof invoke.src === 'string' ? invoke.src : invoke.id}`);
  if (entry.length) rows.push(`entry ${entry.join(', ')}`);
  if (exit.length) rows.push(`exit ${exit.join(', ')}`);
  for (const t of targetless) rows.push(`on ${t.event}`);
  return rows;
}

/** The leaf a transition into `node` ends in: a compound stands for its initial child. */
function leafOf(node: AnyStateNode): AnyStateNode {
  let current = node;
  while (Object.keys(current.states).length > 0 && current.initial?.target?.[0]) current = current.initial.target[0];
  return current;
}

function leavesBelow(node: AnyStateNode): AnyStateNode[] {
  const children = Object.values(node.states);
  if (children.length === 0) return [node];
  return children.flatMap(leavesBelow);
}

/** The machine's states and transitions, each guarded branch an edge of its own. */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const root = machine.root;
  const all = stateNodes(machine);
  const byId = new Map(all.map((n) => [shortId(n), n]));
  const nodes: MachineNode[] = [];
  const edges: MachineEdge[] = [];

  for (const node of all) {
    const id = shortId(node);
    const parent = node.parent ? shortId(node.parent) : null;
    const transitions = [...node.transitions.values()].flat().map((t) => describeTransition(t as TransitionLike));
    const always = (node.always ?? []).map((t) => describeTransition(t as TransitionLike));
    const kind = kindOf(node, root);
    nodes.push({
      id,
      key: node.key,
      kind,
      parent,
      transient: (node.always ?? []).some((t) => !t.guard),
      rows: kind === 'choice' ? [] : rowsOf(node, transitions.filter((t) => t.targets.length === 0)),
    });
    const initial = node.initial?.target?.[0];
    if (initial && Object.keys(node.states).length > 0) {
      const dot = `${id}.(initial)`;
      nodes.push({ id: dot, key: '', kind: 'initial', parent: id, transient: true, rows: [] });
      edges.push(edgeOf({ key: `${dot} --> ${shortId(initial)}`, source: dot, event: 'start', targets: [shortId(initial)], actions: [] }, [], leafOf(initial).key, [dot]));
    }
    const finals = node === root ? new Set(all.filter((n) => n.type === 'final')) : new Set<AnyStateNode>();
    const sourceKeys = leavesBelow(node)
      .filter((leaf) => !finals.has(leaf))
      .map((leaf) => leaf.key);
    for (const group of [transitions, always]) {
      for (const t of group) {
        for (const target of t.targets) {
          const targetNode = byId.get(target);
          if (!targetNode) continue;
          edges.push(edgeOf({ ...t, targets: [target] }, group, leafOf(targetNode).key, sourceKeys));
        }
      }
    }
  }
  return { id: machine.id, nodes, edges };
}

function edgeOf(t: TransitionInfo, siblings: TransitionInfo[], targetKey: string, sourceKeys: string[]): MachineEdge {
  const guarded = siblings.some((s) => s.event === t.event && s.guard);
  const guard = t.guard ?? (guarded ? 'else' : null);
  const event = t.event === 'always' || t.event === 'start' ? '' : t.event;
  const actions = t.actions.filter((a) => a !== 'inline');
  const target = t.targets[0] as string;
  return {
    id: `${t.key.replace(/-->.*$/, '')}--> ${target}`,
    source: t.source,
    target,
    sourceKeys,
    targetKey,
    event: t.event,
    guard,
    actions,
    label: [event, guard ? `[${guard}]` : ''].filter(Boolean).join(' '),
    details: actions.map((a, i) => (i === 0 ? `/ ${a}` : `  ${a}`)),
  };
}
