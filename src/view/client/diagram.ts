/** The machine's diagram in the page: the server's SVG, with the step's state and edges marked. */
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
    from.innerHTML = machine.svg.replace(/(["#])m-arrow/g, `$1${prefix}-arrow`);
    this.svg = from.querySelector('svg') as SVGSVGElement;
    this.prefix = prefix;
    container.replaceChildren(this.svg);
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
