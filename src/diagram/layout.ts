/**
 * Lays the machine graph out with ELK (elkjs, the engine Stately's visualizer uses): layered,
 * top to bottom, frames for the machine and compound states, orthogonal edges, and edge labels
 * placed as boxes of their own so that no label covers a node or another label.
 *
 * Text is set in a monospace font (state, event and guard names are code), so its width is known
 * here without a browser: `CHAR_EM` of the font size per character.
 */
import elkBundle from 'elkjs/lib/elk.bundled.js';
import type { ELK as ElkApi, ElkExtendedEdge, ElkLabel, ElkNode } from 'elkjs/lib/elk-api.js';
import type { MachineEdge, MachineGraph, MachineNode } from './graph.js';

/** Width of one monospace character per unit of font size (DejaVu Sans Mono, Menlo: 0.602). */
export const CHAR_EM = 0.61;
export const FONT = { title: 12.5, row: 10.5, label: 11, detail: 10 } as const;
export const LINE = { title: 18, row: 14, label: 14, detail: 13 } as const;
const PAD_X = 10;
const PAD_Y = 7;

export const textWidth = (text: string, size: number) => Math.ceil(text.length * size * CHAR_EM);

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PlacedNode extends MachineNode, Box {}

export interface PlacedEdge extends MachineEdge {
  /** The route, start to end (orthogonal segments). */
  points: Array<{ x: number; y: number }>;
  /** The label's box (event/guard line, then the actions line); absent for an unlabelled edge. */
  labelBox?: Box;
}

export interface MachineLayout {
  id: string;
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

/** Size of a node's box from its text. */
function nodeSize(node: MachineNode): { width: number; height: number } {
  if (node.kind === 'initial') return { width: 12, height: 12 };
  const title = textWidth(node.key, FONT.title);
  const rows = Math.max(0, ...node.rows.map((r) => textWidth(r, FONT.row)));
  if (node.kind === 'choice') return { width: title + 2 * PAD_X + 18, height: LINE.title + 2 * PAD_Y };
  return {
    width: Math.max(title, rows) + 2 * PAD_X,
    height: LINE.title + node.rows.length * LINE.row + 2 * PAD_Y,
  };
}

/** Room at the top of a frame for its title and rows. */
function framePadding(node: MachineNode): string {
  const top = PAD_Y + LINE.title + node.rows.length * LINE.row + 10;
  return `[top=${top},left=14,bottom=14,right=14]`;
}

function labelOf(edge: MachineEdge): ElkLabel[] {
  if (!edge.label && edge.details.length === 0) return [];
  const width = Math.max(textWidth(edge.label, FONT.label), ...edge.details.map((d) => textWidth(d, FONT.detail))) + 6;
  const height = (edge.label ? LINE.label : 0) + edge.details.length * LINE.detail + 2;
  return [{ id: `${edge.id}#label`, text: edge.label, width, height, layoutOptions: LABEL_OPTIONS }];
}

/** On each label: drawn on its edge (the line runs through it), halfway. */
const LABEL_OPTIONS: Record<string, string> = { 'elk.edgeLabels.inline': 'true', 'elk.edgeLabels.placement': 'CENTER' };

const LAYOUT_OPTIONS: Record<string, string> = {
  'elk.algorithm': 'layered',
  'elk.direction': 'DOWN',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.layered.spacing.nodeNodeBetweenLayers': '20',
  'elk.layered.spacing.edgeNodeBetweenLayers': '12',
  'elk.layered.spacing.edgeEdgeBetweenLayers': '8',
  'elk.spacing.nodeNode': '20',
  'elk.spacing.edgeNode': '12',
  'elk.spacing.edgeEdge': '9',
  'elk.spacing.edgeLabel': '4',
  'elk.spacing.labelNode': '6',
  'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
  'elk.layered.crossingMinimization.semiInteractive': 'false',

  'elk.json.shapeCoords': 'ROOT',
  'elk.json.edgeCoords': 'ROOT',
};

/** Places every node, edge and label of the graph. Deterministic: the same graph gives the same layout. */
export async function layoutMachine(graph: MachineGraph): Promise<MachineLayout> {
  const children = new Map<string | null, MachineNode[]>();
  for (const node of graph.nodes) children.set(node.parent, [...(children.get(node.parent) ?? []), node]);
  const toElk = (node: MachineNode): ElkNode => {
    const inner = children.get(node.id) ?? [];
    if (inner.length === 0) return { id: node.id, ...nodeSize(node) };
    return {
      id: node.id,
      layoutOptions: { ...LAYOUT_OPTIONS, 'elk.padding': framePadding(node) },
      children: inner.map(toElk),
      // The frame must be wide enough for its title and rows.
      ...{ width: nodeSize(node).width },
    };
  };
  const machine = graph.nodes.find((n) => n.parent === null) as MachineNode;
  const edges: ElkExtendedEdge[] = graph.edges.map((e) => ({
    id: e.id,
    sources: [e.source],
    targets: [e.target],
    labels: labelOf(e),
  }));
  // The bundle is CommonJS whose module.exports is the class; its typings say `export default`.
  const elk = new (elkBundle as unknown as new () => ElkApi)();
  const root: ElkNode = await elk.layout({
    id: '(root)',
    layoutOptions: { ...LAYOUT_OPTIONS, 'elk.padding': '[top=8,left=8,bottom=8,right=8]' },
    children: [toElk(machine)],
    edges,
  });

  const placed = new Map<string, Box>();
  const walk = (node: ElkNode) => {
    placed.set(node.id, { x: node.x ?? 0, y: node.y ?? 0, w: node.width ?? 0, h: node.height ?? 0 });
    for (const child of node.children ?? []) walk(child);
  };
  for (const child of root.children ?? []) walk(child);
  const laidEdges = new Map((root.edges ?? []).map((e) => [e.id, e]));
  return {
    id: graph.id,
    width: Math.ceil(root.width ?? 0),
    height: Math.ceil(root.height ?? 0),
    nodes: graph.nodes.map((n) => ({ ...n, ...(placed.get(n.id) as Box) })),
    edges: graph.edges.map((e) => {
      const laid = laidEdges.get(e.id) as ElkExtendedEdge;
      const points = (laid.sections ?? []).flatMap((s) => [s.startPoint, ...(s.bendPoints ?? []), s.endPoint]);
      const label = laid.labels?.[0];
      return {
        ...e,
        points: points.map((p) => ({ x: p.x, y: p.y })),
        ...(label ? { labelBox: { x: label.x ?? 0, y: label.y ?? 0, w: label.width ?? 0, h: label.height ?? 0 } } : {}),
      };
    }),
  };
}
