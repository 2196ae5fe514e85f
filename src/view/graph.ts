/**
 * The machine's diagram for the viewer, derived from its definition (a walk of `machine.root`)
 * and laid out here, so that the page draws it as SVG with no library and no network.
 *
 * Layout, top to bottom (a small Sugiyama-style layering):
 * - leaf states are the boxes; a compound state is a frame around its children; an eventless
 *   decision state (only `always` transitions) is drawn dashed, since the machine never rests in it;
 * - each box gets a rank: the longest path from the initial state over forward edges; edges that
 *   go back up (the loop) are found by a depth-first walk and routed in lanes on the left;
 * - an edge that skips ranks goes through placeholder points, one per rank, so it never crosses
 *   a box; boxes in a rank are ordered by the mean position of their neighbours.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { listTransitions, stateNodes, type TransitionInfo } from '../diagram/transitions.js';

export type NodeKind = 'state' | 'choice' | 'final' | 'compound';

export interface GraphNode {
  /** Dotted path below the machine, e.g. `turn.callingModel`. */
  id: string;
  /** The state's own key, as `runAgent` reports it, e.g. `callingModel`. */
  key: string;
  kind: NodeKind;
  /** Left at once by an unguarded eventless transition: the machine passes through, never rests. */
  transient: boolean;
  parent: string | null;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface GraphEdge {
  source: string;
  target: string;
  /** Keys of the leaf states the edge can leave from (all leaves of a compound source). */
  sourceKeys: string[];
  /** Key of the leaf state the edge enters (a compound's initial leaf). */
  targetKey: string;
  /** One line per transition drawn by this edge (several guards can lead to the same state). */
  labels: string[];
  /** SVG path data. */
  path: string;
  labelAt: { x: number; y: number; rotate: boolean };
  back: boolean;
}

export interface MachineGraph {
  id: string;
  initial: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

const BOX_H = 34;
const CHOICE_H = 28;
const RANK_GAP = 62;
const COL_GAP = 34;
const DUMMY_W = 12;
const FRAME_PAD = 16;
const FRAME_TITLE = 22;
const LANE_GAP = 13;
const CHAR_W = 7.2;

function shortId(node: AnyStateNode): string {
  return node.id.split('.').slice(1).join('.');
}

function isChoice(node: AnyStateNode): boolean {
  return (node.always?.length ?? 0) > 0 && node.transitions.size === 0 && node.entry.length === 0 && node.invoke.length === 0;
}

function kindOf(node: AnyStateNode): NodeKind {
  if (Object.keys(node.states).length > 0) return 'compound';
  if (node.type === 'final') return 'final';
  return isChoice(node) ? 'choice' : 'state';
}

function edgeLabel(t: TransitionInfo, all: TransitionInfo[]): string {
  const guarded = all.some((s) => s.source === t.source && s.event === t.event && s.guard);
  const event = t.event === 'always' ? '' : t.event;
  const guard = t.guard ? `[${t.guard}]` : guarded && t.event === 'always' ? '[else]' : '';
  return [event, guard].filter(Boolean).join(' ') || 'always';
}

interface LayoutNode {
  id: string;
  dummy: boolean;
  rank: number;
  order: number;
  w: number;
  h: number;
  x: number;
  /** The compound this box lies in (placeholders: the one both ends lie in). */
  group: string | null;
}

/** The machine's states and transitions, laid out for drawing. */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const all = stateNodes(machine).filter((n) => n !== machine.root);
  const byId = new Map(all.map((n) => [shortId(n), n]));
  const parentOf = (n: AnyStateNode) => (n.parent && n.parent !== machine.root ? shortId(n.parent) : null);
  const leaves = all.filter((n) => kindOf(n) !== 'compound');
  const compounds = all.filter((n) => kindOf(n) === 'compound');

  /** A compound target stands for its initial leaf. */
  const leafOf = (id: string): string => {
    let node = byId.get(id);
    while (node && kindOf(node) === 'compound') node = node.initial?.target?.[0];
    return node ? shortId(node) : id;
  };

  // A transition of the machine itself can be taken in any state: drawn from each top-level state.
  const rootId = shortId(machine.root) || machine.root.id;
  const topLevel = Object.values(machine.root.states).filter((n) => n.type !== 'final').map(shortId);
  const transitions = listTransitions(machine)
    .filter((t) => t.targets.length > 0 && t.source !== '')
    .flatMap((t) => (t.source === rootId ? topLevel.map((source) => ({ ...t, source })) : [t]));
  // One edge per (source, target): guards leading to the same state share a line.
  const grouped = new Map<string, { source: string; target: string; labels: string[] }>();
  for (const t of transitions) {
    for (const target of t.targets) {
      const key = `${t.source}->${target}`;
      const entry = grouped.get(key) ?? { source: t.source, target, labels: [] };
      entry.labels.push(edgeLabel(t, transitions));
      grouped.set(key, entry);
    }
  }
  const edges = [...grouped.values()];

  // Depth-first walk from the initial leaf: an edge to a state still on the stack goes back.
  const initialLeaf = leafOf(shortId(machine.root.initial?.target?.[0] ?? (leaves[0] as AnyStateNode)));
  const out = new Map<string, string[]>();
  const ranked = edges.filter((e) => kindOf(byId.get(e.source) as AnyStateNode) !== 'compound');
  for (const e of ranked) out.set(e.source, [...(out.get(e.source) ?? []), leafOf(e.target)]);
  const back = new Set<string>();
  const discovery: string[] = [];
  const onStack = new Set<string>();
  const seen = new Set<string>();
  const visit = (id: string) => {
    seen.add(id);
    onStack.add(id);
    discovery.push(id);
    for (const next of out.get(id) ?? []) {
      if (onStack.has(next)) back.add(`${id}->${next}`);
      else if (!seen.has(next)) visit(next);
    }
    onStack.delete(id);
  };
  visit(initialLeaf);
  for (const leaf of leaves) if (!seen.has(shortId(leaf))) visit(shortId(leaf));

  // Ranks: longest path over forward edges.
  const rank = new Map<string, number>(discovery.map((id) => [id, 0]));
  for (let changed = true, guard = 0; changed && guard < 100; guard++) {
    changed = false;
    for (const [source, targets] of out) {
      for (const target of targets) {
        if (back.has(`${source}->${target}`)) continue;
        const wanted = (rank.get(source) ?? 0) + 1;
        if ((rank.get(target) ?? 0) < wanted) {
          rank.set(target, wanted);
          changed = true;
        }
      }
    }
  }

  // Layout nodes: the leaves, and a placeholder per skipped rank of a long forward edge.
  const layout = new Map<string, LayoutNode>();
  for (const leaf of leaves) {
    const id = shortId(leaf);
    const choice = kindOf(leaf) === 'choice';
    layout.set(id, {
      id,
      dummy: false,
      rank: rank.get(id) ?? 0,
      order: discovery.indexOf(id),
      w: Math.max(96, Math.round(leaf.key.length * CHAR_W + 28)),
      h: choice ? CHOICE_H : BOX_H,
      x: 0,
      group: parentOf(leaf),
    });
  }
  // The ranks each compound's children occupy: placeholders in those ranks stay inside its frame.
  const frameRanks = new Map<string, { min: number; max: number }>();
  for (const node of layout.values()) {
    if (node.group === null) continue;
    const span = frameRanks.get(node.group) ?? { min: node.rank, max: node.rank };
    frameRanks.set(node.group, { min: Math.min(span.min, node.rank), max: Math.max(span.max, node.rank) });
  }
  const frameAt = (group: string | null, r: number) => {
    const span = group === null ? undefined : frameRanks.get(group);
    return span && r >= span.min && r <= span.max ? group : null;
  };
  const chains = new Map<string, string[]>();
  for (const e of ranked) {
    const target = leafOf(e.target);
    if (back.has(`${e.source}->${target}`)) continue;
    const from = layout.get(e.source) as LayoutNode;
    const to = layout.get(target) as LayoutNode;
    const chain = [e.source];
    for (let r = from.rank + 1; r < to.rank; r++) {
      const id = `~${e.source}->${e.target}#${r}`;
      const group = frameAt(from.group, r) ?? frameAt(to.group, r);
      layout.set(id, { id, dummy: true, rank: r, order: from.order + 0.5, w: DUMMY_W, h: BOX_H, x: 0, group });
      chain.push(id);
    }
    chain.push(target);
    chains.set(`${e.source}->${e.target}`, chain);
  }

  // Order within ranks: children of a compound first, then by the mean order of neighbours.
  const ranks: LayoutNode[][] = [];
  for (const node of layout.values()) (ranks[node.rank] ??= []).push(node);
  const neighbours = new Map<string, string[]>();
  for (const chain of chains.values()) {
    for (let i = 0; i + 1 < chain.length; i++) {
      const a = chain[i] as string;
      const b = chain[i + 1] as string;
      neighbours.set(a, [...(neighbours.get(a) ?? []), b]);
      neighbours.set(b, [...(neighbours.get(b) ?? []), a]);
    }
  }
  const sortRank = (nodes: LayoutNode[]) => {
    const centre = (n: LayoutNode) => {
      const around = (neighbours.get(n.id) ?? []).map((id) => layout.get(id) as LayoutNode).filter((m) => m.rank !== n.rank);
      return around.length ? around.reduce((s, m) => s + m.order, 0) / around.length : n.order;
    };
    const keyed = nodes.map((n) => ({ n, group: n.group === null ? 1 : 0, c: centre(n) }));
    keyed.sort((a, b) => a.group - b.group || a.c - b.c || a.n.order - b.n.order);
    keyed.forEach((k, i) => (k.n.order = i));
    nodes.splice(0, nodes.length, ...keyed.map((k) => k.n));
  };
  for (const nodes of ranks) nodes?.sort((a, b) => a.order - b.order).forEach((n, i) => (n.order = i));
  for (let sweep = 0; sweep < 4; sweep++) for (const nodes of ranks) if (nodes) sortRank(nodes);

  // x: left to right in each rank; outside a compound's frame, boxes start right of it.
  const left = FRAME_PAD + 8;
  let frameRight = 0;
  for (const nodes of ranks) {
    let x = left;
    for (const node of nodes ?? []) {
      if (node.group !== null) {
        node.x = x;
        x += node.w + COL_GAP;
      }
    }
    frameRight = Math.max(frameRight, x - COL_GAP + FRAME_PAD);
  }
  ranks.forEach((nodes, r) => {
    const inFrame = [...frameRanks.values()].some((s) => r >= s.min && r <= s.max);
    let x = left;
    for (const node of nodes ?? []) {
      if (node.group !== null) {
        x = node.x + node.w + COL_GAP;
        continue;
      }
      if (inFrame) x = Math.max(x, frameRight + COL_GAP);
      node.x = x;
      x += node.w + COL_GAP;
    }
  });

  // Back edges need lanes on the left: shift everything right to make room.
  const backEdges = edges.filter((e) => back.has(`${e.source}->${leafOf(e.target)}`));
  const laneRoom = backEdges.length * LANE_GAP + 18;
  for (const node of layout.values()) node.x += laneRoom;

  const rankY = (r: number) => FRAME_TITLE + 14 + r * (BOX_H + RANK_GAP);
  const yOf = (n: LayoutNode) => rankY(n.rank) + (BOX_H - n.h) / 2;
  const nodes: GraphNode[] = [];
  for (const leaf of leaves) {
    const l = layout.get(shortId(leaf)) as LayoutNode;
    const transient = (leaf.always ?? []).some((t) => !t.guard);
    nodes.push({ id: l.id, key: leaf.key, kind: kindOf(leaf), transient, parent: parentOf(leaf), x: l.x, y: yOf(l), w: l.w, h: l.h });
  }
  for (const compound of compounds) {
    const id = shortId(compound);
    const inside = [...layout.values()].filter((l) => l.dummy && l.group === id).map((l) => ({ x: l.x, y: yOf(l), w: l.w, h: l.h }));
    const children = [...nodes.filter((n) => n.parent === id), ...inside];
    if (children.length === 0) continue;
    const x0 = Math.min(...children.map((c) => c.x)) - FRAME_PAD;
    const y0 = Math.min(...children.map((c) => c.y)) - FRAME_PAD - FRAME_TITLE + 8;
    const x1 = Math.max(...children.map((c) => c.x + c.w)) + FRAME_PAD;
    const y1 = Math.max(...children.map((c) => c.y + c.h)) + FRAME_PAD;
    nodes.unshift({ id, key: compound.key, kind: 'compound', transient: false, parent: parentOf(compound), x: x0, y: y0, w: x1 - x0, h: y1 - y0 });
  }
  const node = (id: string) => nodes.find((n) => n.id === id) as GraphNode;
  const placeholders = [...layout.values()].filter((l) => l.dummy);
  const keyOf = (id: string) => byId.get(id)?.key ?? id;
  const leafKeysOf = (id: string) => {
    const n = byId.get(id);
    if (!n || kindOf(n) !== 'compound') return [keyOf(id)];
    return leaves.filter((l) => shortId(l).startsWith(`${id}.`)).map((l) => l.key);
  };

  const drawn: GraphEdge[] = [];
  const draw = (e: { source: string; target: string; labels: string[] }, path: string, labelAt: GraphEdge['labelAt'], back: boolean) =>
    drawn.push({
      source: e.source,
      target: e.target,
      sourceKeys: leafKeysOf(e.source),
      targetKey: keyOf(leafOf(e.target)),
      labels: e.labels,
      path,
      labelAt,
      back,
    });
  let lane = 0;
  for (const e of edges) {
    const source = node(e.source);
    const target = node(e.target);
    const targetLeaf = node(leafOf(e.target));
    const isBack = back.has(`${e.source}->${leafOf(e.target)}`);
    if (isBack) {
      const x = laneRoom - 10 - lane * LANE_GAP;
      const d = 10 + lane * 5;
      lane += 1;
      const sx = source.x + source.w / 2;
      const sy = source.y + source.h;
      const tx = targetLeaf.x + Math.min(24, targetLeaf.w / 3);
      const ty = target.kind === 'compound' ? target.y : targetLeaf.y;
      const points: Array<[number, number]> = [
        [sx, sy],
        [sx, sy + d],
        [x, sy + d],
        [x, ty - d],
        [tx, ty - d],
        [tx, ty],
      ];
      draw(e, roundedPath(points), { x: x - 4, y: (sy + ty) / 2, rotate: true }, true);
      continue;
    }
    if (source.kind === 'compound') {
      // Leaves the frame on its right side in the channel above the target's rank, then drops in.
      const sx = source.x + source.w;
      const tx = target.x + target.w / 2;
      const y = Math.max(source.y + 30, target.y - 16);
      const points: Array<[number, number]> = [
        [sx, y],
        [tx, y],
        [tx, target.y],
      ];
      draw(e, roundedPath(points), { x: sx + 4, y: y - 5, rotate: false }, false);
      continue;
    }
    const chain = (chains.get(`${e.source}->${e.target}`) ?? [e.source, leafOf(e.target)]).map((id) => layout.get(id) as LayoutNode);
    const points: Array<[number, number]> = [];
    chain.forEach((l, i) => {
      const cx = l.x + l.w / 2;
      const top = yOf(l);
      if (i === 0) points.push([cx, top + l.h]);
      else if (i === chain.length - 1) points.push([cx, top]);
      else points.push([cx, top], [cx, top + l.h]);
    });
    const [a, b] = [points[0] as [number, number], points[1] as [number, number]];
    draw(e, smoothPath(points), { x: (a[0] + b[0]) / 2 + 5, y: a[1] + 16, rotate: false }, false);
  }
  // Lanes and arrows may reach above the first box: move everything into view.
  const ys = [...nodes.map((n) => n.y), ...drawn.flatMap((e) => pathYs(e.path))];
  const shift = Math.max(0, 12 - Math.min(...ys));
  for (const n of nodes) n.y += shift;
  for (const e of drawn) {
    e.path = shiftPath(e.path, shift);
    e.labelAt.y += shift;
  }
  const width = Math.max(...nodes.map((n) => n.x + n.w), ...placeholders.map((l) => l.x + l.w)) + 24;
  const height = Math.max(...nodes.map((n) => n.y + n.h)) + 16;
  return { id: machine.id, initial: initialLeaf, nodes, edges: drawn, width, height };
}

/** A polyline with rounded corners. */
function roundedPath(points: Array<[number, number]>, radius = 6): string {
  let d = `M${points[0]?.[0]},${points[0]?.[1]}`;
  for (let i = 1; i < points.length; i++) {
    const [x, y] = points[i] as [number, number];
    const next = points[i + 1];
    if (!next) {
      d += ` L${x},${y}`;
      break;
    }
    const [px, py] = points[i - 1] as [number, number];
    const r1 = Math.min(radius, Math.hypot(x - px, y - py) / 2);
    const r2 = Math.min(radius, Math.hypot(next[0] - x, next[1] - y) / 2);
    const ax = x - Math.sign(x - px) * r1;
    const ay = y - Math.sign(y - py) * r1;
    const bx = x + Math.sign(next[0] - x) * r2;
    const by = y + Math.sign(next[1] - y) * r2;
    d += ` L${ax},${ay} Q${x},${y} ${bx},${by}`;
  }
  return d;
}

/** Vertical S-curves through the points, two by two (bottom of one box to the top of the next). */
function smoothPath(points: Array<[number, number]>): string {
  let d = `M${points[0]?.[0]},${points[0]?.[1]}`;
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1] as [number, number];
    const [x1, y1] = points[i] as [number, number];
    if (x0 === x1) {
      d += ` L${x1},${y1}`;
      continue;
    }
    const my = (y0 + y1) / 2;
    d += ` C${x0},${my} ${x1},${my} ${x1},${y1}`;
  }
  return d;
}

const NUMBER_PAIR = /(-?[\d.]+),(-?[\d.]+)/g;

function pathYs(path: string): number[] {
  return [...path.matchAll(NUMBER_PAIR)].map((m) => Number(m[2]));
}

function shiftPath(path: string, dy: number): string {
  return dy === 0 ? path : path.replace(NUMBER_PAIR, (_, x: string, y: string) => `${x},${Number(y) + dy}`);
}
