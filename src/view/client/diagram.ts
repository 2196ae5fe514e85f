/**
 * The whole machine (every production path) in the page: the server's SVG, with the step's state and
 * edges marked, in a box of its own that scrolls; the learner zooms it (fit to the box, or larger).
 */
import type { MachineView } from './api.js';

let copies = 0;

export class Diagram {
  private readonly svg: SVGSVGElement;
  private readonly prefix: string;

  constructor(
    container: HTMLElement,
    private readonly machine: MachineView,
  ) {
    // Each copy gets its own marker ids, so two diagrams can share a page.
    const from = container.ownerDocument.createElement('div');
    const prefix = `d${copies++}`;
    from.innerHTML = machine.svg.replace(/(["#])m-arrow/g, (_match, mark: string) => `${mark}${prefix}-arrow`);
    this.svg = from.querySelector('svg') as SVGSVGElement;
    this.prefix = prefix;
    this.natural = Number(this.svg.getAttribute('width')) || 1400;
    this.svg.removeAttribute('height');
    container.replaceChildren(this.svg);
    this.zoom(null);
  }

  private readonly natural: number;
  private scale: number | null = null;

  /** `null`: as wide as its box; otherwise that share of its natural size (1: as drawn). */
  zoom(scale: number | null): void {
    this.scale = scale === null ? null : Math.min(2, Math.max(0.25, scale));
    this.svg.style.width = this.scale === null ? '100%' : `${Math.round(this.natural * this.scale)}px`;
  }

  /** One step larger or smaller than now (from the fitted size when fitted). */
  zoomBy(factor: number, boxWidth: number): void {
    this.zoom((this.scale ?? boxWidth / this.natural) * factor);
  }

  /** Marks `state` as current, `visited` as seen, and the edges with these ids as taken. */
  show(state: string | null, visited: ReadonlySet<string>, edgeIds: readonly string[]): void {
    for (const node of this.svg.querySelectorAll<SVGGElement>('.node')) {
      const key = node.dataset.key ?? '';
      const frame = node.classList.contains('kind-machine') || node.classList.contains('kind-compound');
      node.classList.toggle('current', !frame && key === state);
      node.classList.toggle('visited', !frame && key !== state && visited.has(key));
    }
    const taken = new Set(edgeIds.map((id) => this.machine.edges.findIndex((e) => e.id === id)));
    for (const element of this.svg.querySelectorAll<SVGElement>('[data-edge]')) {
      const on = taken.has(Number(element.dataset.edge));
      element.classList.toggle('taken', on);
      if (element.tagName === 'path') element.setAttribute('marker-end', `url(#${this.prefix}-arrow${on ? '-taken' : ''})`);
    }
  }
}
