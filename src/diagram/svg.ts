/**
 * Draws a laid-out machine as SVG markup: diagrams/agent-loop.svg is this, and so is the diagram
 * the viewer shows (it only toggles classes on it). Nodes carry `data-key` (the state's key) and
 * edges and their labels `data-edge` (the edge's index in the layout), for the viewer to find them.
 */
import { FONT, LINE, type Box, type MachineLayout, type PlacedEdge, type PlacedNode } from './layout.js';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n = (value: number) => String(Math.round(value * 10) / 10);

/** The diagram's own look; the viewer adds `.current`, `.visited` and `.taken` on top. */
export const DIAGRAM_CSS = `
.machine-diagram { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
.machine-diagram .frame { fill: #f8f9fb; stroke: #b9c0cc; stroke-width: 1.2; }
.machine-diagram .kind-machine > .frame { fill: #fcfcfd; stroke: #98a2b3; }
.machine-diagram .box { fill: #fff; stroke: #667085; stroke-width: 1.3; }
.machine-diagram .transient .box { stroke-dasharray: 4 3; }
.machine-diagram .kind-choice .box { fill: #fffaeb; stroke: #b54708; }
.machine-diagram .kind-final .box { stroke-width: 1.3; }
.machine-diagram .dot { fill: #344054; }
.machine-diagram .title { font-size: ${FONT.title}px; font-weight: 700; fill: #1d2430; }
.machine-diagram .kind-choice .title { font-weight: 600; font-style: italic; fill: #93370d; }
.machine-diagram .row { font-size: ${FONT.row}px; fill: #667085; }
.machine-diagram .edge { fill: none; stroke: #98a2b3; stroke-width: 1.3; }
.machine-diagram .label-bg { fill: #fff; fill-opacity: 0.92; }
.machine-diagram .label { font-size: ${FONT.label}px; fill: #344054; }
.machine-diagram .detail { font-size: ${FONT.detail}px; fill: #8a94a6; }
`;

function path(points: PlacedEdge['points'], radius = 5): string {
  const [first, ...rest] = points;
  if (!first) return '';
  let d = `M${n(first.x)},${n(first.y)}`;
  rest.forEach((p, i) => {
    const prev = points[i] as { x: number; y: number };
    const next = rest[i + 1];
    if (!next) {
      d += ` L${n(p.x)},${n(p.y)}`;
      return;
    }
    const r1 = Math.min(radius, Math.hypot(p.x - prev.x, p.y - prev.y) / 2);
    const r2 = Math.min(radius, Math.hypot(next.x - p.x, next.y - p.y) / 2);
    const a = { x: p.x - Math.sign(p.x - prev.x) * r1, y: p.y - Math.sign(p.y - prev.y) * r1 };
    const b = { x: p.x + Math.sign(next.x - p.x) * r2, y: p.y + Math.sign(next.y - p.y) * r2 };
    d += ` L${n(a.x)},${n(a.y)} Q${n(p.x)},${n(p.y)} ${n(b.x)},${n(b.y)}`;
  });
  return d;
}

function lozenge({ x, y, w, h }: Box): string {
  const k = h / 2;
  return [
    [x + k, y],
    [x + w - k, y],
    [x + w, y + h / 2],
    [x + w - k, y + h],
    [x + k, y + h],
    [x, y + h / 2],
  ]
    .map(([px, py]) => `${n(px as number)},${n(py as number)}`)
    .join(' ');
}

function nodeMarkup(node: PlacedNode): string {
  const classes = `node kind-${node.kind}${node.transient ? ' transient' : ''}`;
  const open = `<g class="${classes}" data-key="${escape(node.key)}" data-id="${escape(node.id)}">`;
  const tip = node.kind === 'choice' || node.transient ? `${node.key}: passed through, never rested in` : node.key;
  const title = `<title>${escape(tip)}</title>`;
  if (node.kind === 'initial') {
    return `${open}${title}<circle class="dot" cx="${n(node.x + node.w / 2)}" cy="${n(node.y + node.h / 2)}" r="${n(node.w / 2)}"/></g>`;
  }
  const rows = (x: number, y: number, anchor: string) =>
    node.rows
      .map((row, i) => `<text class="row" x="${n(x)}" y="${n(y + (i + 1) * LINE.row)}" text-anchor="${anchor}">${escape(row)}</text>`)
      .join('');
  if (node.kind === 'machine' || node.kind === 'compound') {
    const top = node.y + 7 + LINE.title - 5;
    return `${open}${title}<rect class="frame" x="${n(node.x)}" y="${n(node.y)}" width="${n(node.w)}" height="${n(node.h)}" rx="10"/>` +
      `<text class="title" x="${n(node.x + 12)}" y="${n(top)}">${escape(node.key)}</text>${rows(node.x + 12, top - 3, 'start')}</g>`;
  }
  const cx = node.x + node.w / 2;
  const top = node.y + 7 + LINE.title - 5;
  const shape =
    node.kind === 'choice'
      ? `<polygon class="box" points="${lozenge(node)}"/>`
      : `<rect class="box" x="${n(node.x)}" y="${n(node.y)}" width="${n(node.w)}" height="${n(node.h)}" rx="7"/>` +
        (node.kind === 'final'
          ? `<rect class="box inner" x="${n(node.x + 3)}" y="${n(node.y + 3)}" width="${n(node.w - 6)}" height="${n(node.h - 6)}" rx="5"/>`
          : '');
  return `${open}${title}${shape}<text class="title" x="${n(cx)}" y="${n(top)}" text-anchor="middle">${escape(node.key)}</text>${rows(cx, top - 3, 'middle')}</g>`;
}

function labelMarkup(edge: PlacedEdge, index: number): string {
  const box = edge.labelBox;
  if (!box) return '';
  const lines: string[] = [];
  let y = box.y + 1;
  if (edge.label) {
    y += LINE.label;
    lines.push(`<text class="label" x="${n(box.x + 3)}" y="${n(y - 3.5)}">${escape(edge.label)}</text>`);
  }
  for (const detail of edge.details) {
    y += LINE.detail;
    lines.push(`<text class="detail" x="${n(box.x + 3)}" y="${n(y - 3.5)}" xml:space="preserve">${escape(detail)}</text>`);
  }
  return `<g class="edge-label" data-edge="${index}"><rect class="label-bg" x="${n(box.x)}" y="${n(box.y)}" width="${n(box.w)}" height="${n(box.h)}" rx="3"/>${lines.join('')}</g>`;
}

export interface SvgOptions {
  /** Include the diagram's `<style>` (for a standalone file; the viewer's page has its own). */
  standalone?: boolean;
  /** Prefix of the arrow markers' ids, so that two diagrams can share one page. */
  idPrefix?: string;
}

/** The SVG markup of a laid-out machine. */
export function machineSvg(layout: MachineLayout, options: SvgOptions = {}): string {
  const prefix = options.idPrefix ?? 'm';
  const markers = [
    [`${prefix}-arrow`, '#98a2b3'],
    [`${prefix}-arrow-taken`, '#2f6fed'],
  ]
    .map(
      ([id, fill]) =>
        `<marker id="${id}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${fill}"/></marker>`,
    )
    .join('');
  const frames = layout.nodes.filter((x) => x.kind === 'machine' || x.kind === 'compound');
  const boxes = layout.nodes.filter((x) => x.kind !== 'machine' && x.kind !== 'compound');
  const edges = layout.edges
    .map((e, i) => `<path class="edge" data-edge="${i}" d="${path(e.points)}" marker-end="url(#${prefix}-arrow)"><title>${escape(e.id)}</title></path>`)
    .join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="machine-diagram" viewBox="0 0 ${layout.width} ${layout.height}" width="${layout.width}" height="${layout.height}" role="img" aria-label="state diagram of the ${escape(layout.id)} machine" data-marker-prefix="${prefix}">`,
    options.standalone ? `<style>${DIAGRAM_CSS}</style><rect width="100%" height="100%" fill="#fff"/>` : '',
    `<defs>${markers}</defs>`,
    frames.map(nodeMarkup).join(''),
    edges,
    boxes.map(nodeMarkup).join(''),
    layout.edges.map(labelMarkup).join(''),
    '</svg>',
  ].join('');
}
