/**
 * One timeline view: a diagram, the step's sentence and loop state, the controls, messages and
 * request. It keeps its own step, so two views (a mistaken run beside a correct one) can share a page.
 */
import type { Usage } from '../../core/usage.js';
import type { Timeline } from '../timeline.js';
import type { MachineView } from './api.js';
import { Diagram } from './diagram.js';
import { h, part } from './dom.js';
import { renderMessages, renderRequest } from './panes.js';

const usageText = (u: Usage | undefined) =>
  u ? `in ${u.input_tokens} · out ${u.output_tokens} · cache read ${u.cache_read_input_tokens ?? 0} · cache write ${u.cache_creation_input_tokens ?? 0}` : '—';

/** The request of this view that differs from the other run's (view --compare). */
export interface DivergenceMark {
  request: number;
  message: number | null;
}

export class TimelineView {
  timeline: Timeline | null = null;
  step = 0;
  divergence: DivergenceMark | null = null;
  /** Follows the newest step while the run goes on (until the user steps back). */
  follow: boolean;
  private readonly diagram: Diagram;

  constructor(
    readonly root: HTMLElement,
    machine: MachineView,
    options: { startAtEnd: boolean },
  ) {
    this.follow = options.startAtEnd;
    this.diagram = new Diagram(part(root, 'diagram'), machine);
    part(root, 'first').onclick = () => this.go(0);
    part(root, 'prev').onclick = () => this.go(this.step - 1);
    part(root, 'next').onclick = () => this.go(this.step + 1);
    part(root, 'last').onclick = () => this.go(this.count() - 1);
    const scrub = part<HTMLInputElement>(root, 'scrub');
    scrub.oninput = () => this.go(Number(scrub.value));
  }

  count(): number {
    return this.timeline?.steps.length ?? 0;
  }

  /** A new version of the timeline (a live run grows). */
  update(timeline: Timeline): void {
    const first = this.timeline === null;
    this.timeline = timeline;
    if (this.follow || (first && this.follow)) this.step = timeline.steps.length - 1;
    this.render();
  }

  go(index: number): void {
    if (!this.timeline) return;
    this.step = Math.max(0, Math.min(index, this.count() - 1));
    this.follow = this.step >= this.count() - 1;
    this.render();
  }

  private render(): void {
    const t = this.timeline;
    const n = this.count();
    const i = Math.max(0, Math.min(this.step, n - 1));
    this.step = i;
    const text = (id: string, value: string) => (part(this.root, id).textContent = value);
    text('step-label', n ? `step ${i + 1} / ${n}` : 'no steps');
    for (const [id, off] of [['first', i <= 0], ['prev', i <= 0], ['next', i >= n - 1], ['last', i >= n - 1]] as const) {
      part<HTMLButtonElement>(this.root, id).disabled = off;
    }
    const scrub = part<HTMLInputElement>(this.root, 'scrub');
    scrub.max = String(Math.max(0, n - 1));
    scrub.value = String(i);
    const step = t?.steps[i];
    if (!t || !step) {
      this.diagram.show(null, new Set(), []);
      return;
    }
    text('state', step.state);
    text('turnCount', String(step.turnCount));
    text('transitionReason', String(step.transitionReason));
    text('exitReason', String(step.exitReason));
    text('event', step.event);
    text('sentence', step.sentence);
    const usage = [...t.usage].reverse().find((u) => u.step <= i);
    text('usage', usage && usage.turnCount === step.turnCount ? usageText(usage.usage) : '— (no reply yet this turn)');
    text('usageTotal', usage ? usageText(usage.total) : '—');
    const retry = part(this.root, 'retry');
    retry.hidden = !step.retry;
    retry.textContent = step.retry ? `retry ${step.retry.attempt}: waiting ${step.retry.delayMs} ms after “${step.retry.error}”` : '';
    const notes = part(this.root, 'notes');
    notes.replaceChildren(...step.notes.map((note) => h('li', { text: note })), ...t.problems.map((p) => h('li', { class: 'status err', text: p })));
    this.diagram.show(step.state, new Set(t.steps.slice(0, i).map((s) => s.state)), step.edges);
    text('msg-count', `(${renderMessages(part(this.root, 'messages'), t, i)})`);
    text('req-label', renderRequest(part(this.root, 'request-pane'), t, step, i));
    this.markDivergence(t, i);
  }

  /** Marks the request pane (and the first differing message) when this step shows the first diverging request. */
  private markDivergence(t: Timeline, i: number): void {
    const pane = part(this.root, 'request-pane');
    let shown = -1;
    t.requests.forEach((r, k) => {
      if (r.step <= i) shown = k;
    });
    const d = this.divergence;
    const missing = d !== null && d.request >= t.requests.length && i === t.steps.length - 1;
    const on = d !== null && (shown === d.request || missing);
    pane.parentElement?.classList.toggle('diverging', on);
    if (!d || !on) return;
    const text = missing
      ? `≠ this run sends no request ${d.request + 1}: it stopped here`
      : `≠ request ${d.request + 1}: the first request that differs from the other run’s${d.message === null ? '' : ` (from messages[${d.message}])`}`;
    pane.prepend(h('div', { class: 'diverging-note', 'data-testid': 'diverging', text }));
    if (d.message !== null && !missing) part(this.root, 'messages').querySelector(`.msg[data-index="${d.message}"]`)?.classList.add('differs');
  }
}
