/**
 * One timeline view: the controls, the chapter's loop with the step's sentence, the reply, tool and
 * state cards, the messages and the request, and the whole machine (zoomable). It keeps its own
 * step, so two views (a mistaken run beside a correct one) can share a page.
 */
import type { Usage } from '../../core/usage.js';
import type { Timeline, TimelineStep } from '../timeline.js';
import type { MachineView } from './api.js';
import { renderReply, renderState, renderTools } from './cards.js';
import { Diagram } from './diagram.js';
import { h, part } from './dom.js';
import { LessonDiagram } from './lesson.js';
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
  private readonly machine: Diagram;
  private readonly lesson: LessonDiagram;
  private production = false;

  constructor(
    readonly root: HTMLElement,
    machine: MachineView,
    options: { startAtEnd: boolean },
  ) {
    this.follow = options.startAtEnd;
    this.machine = new Diagram(part(root, 'diagram'), machine);
    this.lesson = new LessonDiagram(part(root, 'lesson'));
    this.bindControls();
  }

  private bindControls(): void {
    const root = this.root;
    part(root, 'first').onclick = () => this.go(0);
    part(root, 'prev').onclick = () => this.go(this.step - 1);
    part(root, 'next').onclick = () => this.go(this.step + 1);
    part(root, 'last').onclick = () => this.go(this.count() - 1);
    const scrub = part<HTMLInputElement>(root, 'scrub');
    scrub.oninput = () => this.go(Number(scrub.value));
    const production = part<HTMLInputElement>(root, 'production');
    production.onchange = () => {
      this.production = production.checked;
      this.render();
    };
    const box = part(root, 'diagram');
    part(root, 'zoom-in').onclick = () => this.machine.zoomBy(1.25, box.clientWidth);
    part(root, 'zoom-out').onclick = () => this.machine.zoomBy(0.8, box.clientWidth);
    part(root, 'zoom-fit').onclick = () => this.machine.zoom(null);
  }

  count(): number {
    return this.timeline?.steps.length ?? 0;
  }

  /** A new version of the timeline (a live run grows). */
  update(timeline: Timeline): void {
    this.timeline = timeline;
    if (this.follow) this.step = timeline.steps.length - 1;
    this.render();
  }

  go(index: number): void {
    if (!this.timeline) return;
    this.step = Math.max(0, Math.min(index, this.count() - 1));
    this.follow = this.step >= this.count() - 1;
    this.render();
  }

  private renderControls(step: TimelineStep | undefined, i: number, n: number): void {
    const text = (id: string, value: string) => (part(this.root, id).textContent = value);
    text('step-label', n ? `step ${i + 1} / ${n}` : 'no steps');
    text('chapter-mark', step?.lesson.marks ?? '');
    text('chapter-title', step?.lesson.title ?? '');
    for (const [id, off] of [['first', i <= 0], ['prev', i <= 0], ['next', i >= n - 1], ['last', i >= n - 1]] as const) {
      part<HTMLButtonElement>(this.root, id).disabled = off;
    }
    const scrub = part<HTMLInputElement>(this.root, 'scrub');
    scrub.max = String(Math.max(0, n - 1));
    scrub.value = String(i);
  }

  render(): void {
    const t = this.timeline;
    const n = this.count();
    const i = Math.max(0, Math.min(this.step, n - 1));
    this.step = i;
    const step = t?.steps[i];
    this.renderControls(step, i, n);
    if (!t || !step) {
      this.machine.show(null, new Set(), []);
      this.lesson.show(null, null, new Set());
      return;
    }
    const text = (id: string, value: string) => (part(this.root, id).textContent = value);
    text('sentence', step.sentence);
    const visited = new Set(t.steps.slice(0, i).map((s) => s.state));
    const previous = i > 0 && step.event !== 'xstate.init' ? (t.steps[i - 1]?.state ?? null) : null;
    const production = this.production || !LessonDiagram.inLoop(step.state);
    part<HTMLInputElement>(this.root, 'production').checked = production;
    this.lesson.production(production);
    this.lesson.show(step.state, previous, visited);
    this.machine.show(step.state, visited, step.edges);
    renderReply(part(this.root, 'reply-card'), step);
    renderTools(part(this.root, 'tool-card'), t, i);
    renderState(part(this.root, 'state-card'), t, i);
    text('msg-count', `(${renderMessages(part(this.root, 'messages'), t, i)})`);
    text('req-label', renderRequest(part(this.root, 'request-pane'), t, i));
    this.renderLoopFields(t, step, i);
    this.markDivergence(t, i);
  }

  /** The rest of the loop's own fields (never sent), the notes and the transcript's problems. */
  private renderLoopFields(t: Timeline, step: TimelineStep, i: number): void {
    const text = (id: string, value: string) => (part(this.root, id).textContent = value);
    text('state', step.kind === 'reply' ? 'checkingReply (passed through: the reply is read)' : step.state);
    text('exitReason', String(step.exitReason));
    text('event', step.event);
    const usage = [...t.usage].reverse().find((u) => u.step <= i);
    text('usage', usage && usage.turnCount === step.turnCount ? usageText(usage.usage) : '— (no reply yet this turn)');
    text('usageTotal', usage ? usageText(usage.total) : '—');
    const retry = part(this.root, 'retry');
    retry.hidden = !step.retry;
    retry.textContent = step.retry ? `retry ${step.retry.attempt}: waiting ${step.retry.delayMs} ms after “${step.retry.error}”` : '';
    part(this.root, 'notes').replaceChildren(...step.notes.map((note) => h('li', { text: note })), ...t.problems.map((p) => h('li', { class: 'status err', text: p })));
  }

  /** Marks the request pane (and the first differing message) when this step shows the first diverging request. */
  private markDivergence(t: Timeline, i: number): void {
    const pane = part(this.root, 'request-pane');
    const shown = t.requests.reduce((found, r, k) => (r.step <= i ? k : found), -1);
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
