/**
 * The chapter's loop, drawn for reading: callingModel → (the reply: needsFollowUp?) →
 * executingTools → appendingResults → callingModel, or done; each state with the chapter's
 * steps ① to ⑧. The production paths (retry, failure, interruption) are a layer the learner turns
 * on. Text is at least 13 units in a 340-unit-wide drawing shown at least 320 px wide, so never
 * under 12 px (the browser test measures it at 390 and 1440 px wide).
 */
const SVG = 'http://www.w3.org/2000/svg';

interface Box {
  id: string;
  x: number;
  y: number;
  w: number;
  h: number;
  title: string;
  tag: string;
  shape?: 'pill' | 'choice';
  production?: boolean;
}

const BOXES: Box[] = [
  { id: 'prompt', x: 84, y: 6, w: 120, h: 30, title: 'prompt', tag: '①②', shape: 'pill' },
  { id: 'callingModel', x: 44, y: 62, w: 200, h: 46, title: 'callingModel', tag: '③ ⑦ call the model' },
  { id: 'checkingReply', x: 54, y: 142, w: 180, h: 44, title: 'needsFollowUp?', tag: '④ the reply', shape: 'choice' },
  { id: 'done', x: 262, y: 142, w: 74, h: 44, title: 'done', tag: '⑧ answer' },
  { id: 'executingTools', x: 44, y: 222, w: 200, h: 46, title: 'executingTools', tag: '⑤ run the tools' },
  { id: 'appendingResults', x: 44, y: 302, w: 200, h: 46, title: 'appendingResults', tag: '⑥ results → messages' },
  { id: 'waitingToRetry', x: 4, y: 396, w: 130, h: 44, title: 'waitingToRetry', tag: 'error: wait, retry', production: true },
  { id: 'failed', x: 142, y: 396, w: 92, h: 44, title: 'failed', tag: 'cannot retry', production: true },
  { id: 'aborted', x: 242, y: 396, w: 94, h: 44, title: 'aborted', tag: 'ABORT', production: true },
];

interface Edge {
  id: string;
  d: string;
  label: string;
  lx: number;
  ly: number;
  production?: boolean;
  anchor?: 'start' | 'middle' | 'end';
}

const EDGES: Edge[] = [
  { id: 'prompt>callingModel', d: 'M144 36 V60', label: '', lx: 0, ly: 0 },
  { id: 'callingModel>checkingReply', d: 'M144 108 V140', label: 'reply', lx: 150, ly: 128, anchor: 'start' },
  { id: 'checkingReply>executingTools', d: 'M144 186 V220', label: 'yes: tool_use', lx: 150, ly: 207, anchor: 'start' },
  { id: 'checkingReply>done', d: 'M234 164 H260', label: 'no', lx: 247, ly: 158 },
  { id: 'executingTools>appendingResults', d: 'M144 268 V300', label: 'TOOLS_DONE', lx: 150, ly: 289, anchor: 'start' },
  { id: 'appendingResults>callingModel', d: 'M44 325 H18 V85 H42', label: 'next turn', lx: 12, ly: 205 },
  { id: 'callingModel>waitingToRetry', d: 'M244 96 H336 V378', label: 'error', lx: 330, ly: 370, production: true, anchor: 'end' },
  { id: 'appendingResults>done', d: 'M244 325 H299 V188', label: 'max turns', lx: 294, ly: 292, production: true, anchor: 'end' },
];

const el = (tag: string, attrs: Record<string, string | number>, text?: string) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
};

function drawBox(box: Box): SVGGElement {
  const g = el('g', { class: `lnode${box.production ? ' production' : ''}`, 'data-node': box.id }) as SVGGElement;
  const { x, y, w, h } = box;
  if (box.shape === 'choice') {
    const k = 14;
    g.append(el('polygon', { class: 'lbox', points: `${x + k},${y} ${x + w - k},${y} ${x + w},${y + h / 2} ${x + w - k},${y + h} ${x + k},${y + h} ${x},${y + h / 2}` }));
  } else g.append(el('rect', { class: 'lbox', x, y, width: w, height: h, rx: box.shape === 'pill' ? h / 2 : 8 }));
  const cx = x + w / 2;
  if (box.shape === 'pill') g.append(el('text', { class: 'ltitle', x: cx, y: y + h / 2 + 5, 'text-anchor': 'middle' }, `${box.tag} ${box.title}`));
  else {
    g.append(el('text', { class: 'ltitle', x: cx, y: y + 19, 'text-anchor': 'middle' }, box.title));
    g.append(el('text', { class: 'ltag', x: cx, y: y + 36, 'text-anchor': 'middle' }, box.tag));
  }
  return g;
}

function drawEdge(edge: Edge): SVGGElement {
  const g = el('g', { class: `ledge${edge.production ? ' production' : ''}`, 'data-edge': edge.id }) as SVGGElement;
  g.append(el('path', { d: edge.d, 'marker-end': 'url(#lesson-arrow)' }));
  if (edge.label) {
    const vertical = edge.id === 'appendingResults>callingModel';
    const attrs: Record<string, string | number> = { class: 'llabel', x: edge.lx, y: edge.ly, 'text-anchor': edge.anchor ?? 'middle' };
    if (vertical) attrs.transform = `rotate(-90 ${edge.lx} ${edge.ly})`;
    g.append(el('text', attrs, edge.label));
  }
  return g;
}

export class LessonDiagram {
  readonly svg: SVGSVGElement;

  constructor(container: HTMLElement) {
    this.svg = el('svg', { viewBox: '0 0 340 444', class: 'lesson-svg', role: 'img', 'aria-label': 'the agent loop of the chapter' }) as SVGSVGElement;
    const defs = el('defs', {});
    const marker = el('marker', { id: 'lesson-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' });
    marker.append(el('path', { d: 'M0 0 L10 5 L0 10 z', class: 'larrow' }));
    defs.append(marker);
    this.svg.append(defs, ...EDGES.map(drawEdge), ...BOXES.map(drawBox));
    container.replaceChildren(this.svg);
  }

  /** Shows or hides the production paths; the drawing keeps its width (its text its size). */
  production(on: boolean): void {
    this.svg.classList.toggle('show-production', on);
    this.svg.setAttribute('viewBox', on ? '0 0 340 444' : '0 0 340 354');
  }

  /** Marks the step's state, the states seen before, and the edge that led here. */
  show(state: string | null, previous: string | null, visited: ReadonlySet<string>): void {
    for (const node of this.svg.querySelectorAll<SVGGElement>('.lnode')) {
      const id = node.dataset.node ?? '';
      node.classList.toggle('current', id === state);
      node.classList.toggle('visited', id !== state && visited.has(id));
    }
    const taken = previous === null ? (state === 'callingModel' ? 'prompt>callingModel' : '') : `${previous}>${state}`;
    for (const edge of this.svg.querySelectorAll<SVGGElement>('.ledge')) edge.classList.toggle('taken', edge.dataset.edge === taken);
  }

  /** Whether the lesson has a box for `state` outside the production layer. */
  static inLoop(state: string): boolean {
    return BOXES.some((b) => b.id === state && !b.production);
  }
}
