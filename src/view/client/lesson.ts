/**
 * The chapter's loop, drawn for reading (../lessonLayout.ts: the boxes and edges, shared with the
 * README's picture): the step's state marked, the edge it came by lit with its label as it applies to
 * this run (../diagramMarks.ts). Text is at least 13 units in a 340-unit-wide drawing shown at least
 * 320 px wide, so never under 12 px (the browser test measures it at 390 and 1440 px wide).
 */
import type { DiagramMarks } from '../lesson/diagramMarks.js';
import { boxTitle, LESSON_BOXES, LESSON_EDGES, type LessonBox, type LessonEdge } from '../lesson/layout.js';
import { render, tr, type Lang } from './lang.js';

const SVG = 'http://www.w3.org/2000/svg';

const el = (tag: string, attrs: Record<string, string | number>, text?: string) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
};

function drawBox(box: LessonBox, lang: Lang): SVGGElement {
  const g = el('g', { class: `lnode${box.production ? ' production' : ''}`, 'data-node': box.id }) as SVGGElement;
  const { x, y, w, h } = box;
  if (box.shape === 'choice') {
    const k = 14;
    g.append(el('polygon', { class: 'lbox', points: `${x + k},${y} ${x + w - k},${y} ${x + w},${y + h / 2} ${x + w - k},${y + h} ${x + k},${y + h} ${x},${y + h / 2}` }));
  } else g.append(el('rect', { class: 'lbox', x, y, width: w, height: h, rx: box.shape === 'pill' ? h / 2 : 8 }));
  const cx = x + w / 2;
  if (box.shape === 'pill') g.append(el('text', { class: 'ltitle', x: cx, y: y + h / 2 + 5, 'text-anchor': 'middle' }, `${tr(lang, box.tag)} ${boxTitle(box, lang)}`));
  else {
    g.append(el('text', { class: 'ltitle', x: cx, y: y + 19, 'text-anchor': 'middle' }, boxTitle(box, lang)));
    g.append(el('text', { class: 'ltag', x: cx, y: y + 36, 'text-anchor': 'middle' }, tr(lang, box.tag)));
  }
  return g;
}

function drawEdge(edge: LessonEdge, lang: Lang): SVGGElement {
  const g = el('g', { class: `ledge${edge.production ? ' production' : ''}`, 'data-edge': edge.id }) as SVGGElement;
  g.append(el('path', { d: edge.d, 'marker-end': 'url(#lesson-arrow)' }));
  if (edge.label) {
    const attrs: Record<string, string | number> = { class: 'llabel', x: edge.lx, y: edge.ly, 'text-anchor': edge.anchor ?? 'middle', 'data-label': edge.id };
    if (edge.vertical) attrs.transform = `rotate(-90 ${edge.lx} ${edge.ly})`;
    g.append(el('text', attrs, tr(lang, edge.label)));
  }
  return g;
}

export class LessonDiagram {
  readonly svg: SVGSVGElement;
  private lang: Lang;

  constructor(
    private readonly container: HTMLElement,
    lang: Lang,
  ) {
    this.lang = lang;
    this.svg = el('svg', { viewBox: '0 0 340 444', class: 'lesson-svg', role: 'img' }) as SVGSVGElement;
    this.draw(lang);
  }

  /** Draws the loop's boxes and edges with their texts in `lang`. */
  draw(lang: Lang): void {
    this.lang = lang;
    this.svg.setAttribute('aria-label', tr(lang, 'diagram.aria'));
    const defs = el('defs', {});
    const marker = el('marker', { id: 'lesson-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' });
    marker.append(el('path', { d: 'M0 0 L10 5 L0 10 z', class: 'larrow' }));
    defs.append(marker);
    this.svg.replaceChildren(defs, ...LESSON_EDGES.map((e) => drawEdge(e, lang)), ...LESSON_BOXES.map((b) => drawBox(b, lang)));
    this.container.replaceChildren(this.svg);
  }

  /** Shows or hides the production paths; the drawing keeps its width (its text its size). */
  production(on: boolean): void {
    this.svg.classList.toggle('show-production', on);
    this.svg.setAttribute('viewBox', on ? '0 0 340 444' : '0 0 340 354');
  }

  /** Marks the step's state, the states seen before, and the edge that led here with its label for this run. */
  show(marks: DiagramMarks | null, visited: ReadonlySet<string>): void {
    for (const node of this.svg.querySelectorAll<SVGGElement>('.lnode')) {
      const id = node.dataset.node ?? '';
      node.classList.toggle('current', id === marks?.node);
      node.classList.toggle('visited', id !== marks?.node && visited.has(id));
    }
    for (const edge of this.svg.querySelectorAll<SVGGElement>('.ledge')) {
      const on = edge.dataset.edge === marks?.edge;
      edge.classList.toggle('taken', on);
      const label = edge.querySelector<SVGTextElement>('text');
      const drawn = LESSON_EDGES.find((e) => e.id === edge.dataset.edge);
      if (label && drawn?.label) label.textContent = on && marks?.label ? render(this.lang, marks.label) : tr(this.lang, drawn.label);
    }
  }

  /** Whether the lesson has a box for `state` outside the production layer. */
  static inLoop(state: string): boolean {
    return LESSON_BOXES.some((b) => b.id === state && !b.production);
  }
}
