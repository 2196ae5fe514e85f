/**
 * One timeline view: the controls, the chapter's loop with the step's sentence, the reply, tool and
 * state cards, the messages and the request, and the whole machine (zoomable). It keeps its own
 * step, so two views (a mistaken run beside a correct one) can share a page.
 */
import type { Usage } from '../../core/usage.js';
import { diagramMarks } from '../lesson/diagramMarks.js';
import type { Timeline, TimelineStep } from '../timeline/build.js';
import type { MachineView } from './api.js';
import { CardBoxes } from './cardBoxes.js';
import { Diagram } from './diagram.js';
import { h, part } from './dom.js';
import { paragraph, render, tr, type Lang } from './lang.js';
import { LessonDiagram } from './lesson.js';
import { renderMessages, renderRequest } from './panes.js';

const counted = (u: Usage) => u.input_tokens + u.output_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) > 0;
/** Usage as reported; none at all (a scripted model's replies) is said to be none, not shown as a measured 0. */
const usageText = (u: Usage | undefined, lang: Lang) =>
  !u ? '—' : !counted(u) ? tr(lang, 'view.usageUncounted') : tr(lang, 'view.usage', { input: u.input_tokens, output: u.output_tokens, read: u.cache_read_input_tokens ?? 0, write: u.cache_creation_input_tokens ?? 0 });

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
  /** Told of each step the user moves to (agentScope.ts keeps it in the hash). */
  onGo: ((step: number) => void) | undefined;
  private readonly machine: Diagram;
  private readonly lesson: LessonDiagram;
  private readonly cards: CardBoxes;
  private production = false;

  constructor(
    readonly root: HTMLElement,
    machine: MachineView,
    options: { startAtEnd: boolean; lang: Lang },
  ) {
    this.follow = options.startAtEnd;
    this.lang = options.lang;
    this.machine = new Diagram(part(root, 'diagram'), machine);
    this.lesson = new LessonDiagram(part(root, 'lesson'), options.lang);
    this.cards = new CardBoxes(root.querySelector('.messages-card') as HTMLElement);
    this.bindControls();
  }

  lang: Lang;

  /** Shows every text in `lang` from now on. */
  setLang(lang: Lang): void {
    this.lang = lang;
    this.lesson.draw(lang);
    this.render();
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

  /** The calls that wait for an approval now (`view --restate`): the tool card says so of each. */
  setWaiting(ids: readonly string[]): void {
    this.cards.context = { waiting: new Set(ids) };
    this.render();
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
    this.onGo?.(this.step);
  }

  private renderControls(step: TimelineStep | undefined, i: number, n: number): void {
    const text = (id: string, value: string) => (part(this.root, id).textContent = value);
    text('step-label', n ? tr(this.lang, 'view.step', { n: i + 1, count: n }) : tr(this.lang, 'view.noSteps'));
    text('chapter-mark', step?.lesson.marks ?? '');
    text('chapter-title', step ? render(this.lang, step.lesson.title) : '');
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
      this.lesson.show(null, new Set());
      return;
    }
    const text = (id: string, value: string) => (part(this.root, id).textContent = value);
    text('sentence', paragraph(this.lang, step.say));
    const why = part(this.root, 'why');
    why.hidden = !step.why;
    why.textContent = step.why ? render(this.lang, step.why) : '';
    const visited = new Set(t.steps.slice(0, i).map((s) => s.state));
    const production = this.production || !LessonDiagram.inLoop(step.state);
    part<HTMLInputElement>(this.root, 'production').checked = production;
    this.lesson.production(production);
    this.lesson.show(diagramMarks(t, i), visited);
    this.machine.show(step.state, visited, step.edges);
    this.cards.draw(t, i, this.lang);
    text('msg-count', `(${renderMessages(part(this.root, 'messages'), t, i, this.lang)})`);
    text('req-label', renderRequest(part(this.root, 'request-pane'), t, i, this.lang));
    this.renderLoopFields(t, step, i);
    this.markDivergence(t, i);
  }

  /** The rest of the loop's own fields (never sent), the notes and the transcript's problems. */
  private renderLoopFields(t: Timeline, step: TimelineStep, i: number): void {
    const text = (id: string, value: string) => (part(this.root, id).textContent = value);
    text('state', step.kind === 'reply' ? tr(this.lang, 'view.checkingReply') : step.state);
    text('exitReason', String(step.exitReason));
    text('event', step.event);
    const usage = [...t.usage].reverse().find((u) => u.step <= i);
    text('usage', usage && usage.turnCount === step.turnCount ? usageText(usage.usage, this.lang) : tr(this.lang, 'view.usageNone'));
    text('usageTotal', usageText(usage?.total, this.lang));
    const retry = part(this.root, 'retry');
    retry.hidden = !step.retry;
    retry.textContent = step.retry ? tr(this.lang, 'view.retry', { attempt: step.retry.attempt, delay: step.retry.delayMs, error: step.retry.error }) : '';
    // A line of the transcript that could not be read is noted at the step its records are in, not at every step.
    const problems = t.problems.filter((p) => problemStep(t, p) === i);
    part(this.root, 'notes').replaceChildren(...step.notes.map((note) => h('li', { text: noteText(note, this.lang) })), ...problems.map((p) => h('li', { class: 'status err', text: p })));
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
    const text = missing ? tr(this.lang, 'view.divergingMissing', { number: d.request + 1 }) : tr(this.lang, 'view.diverging', { number: d.request + 1, message: d.message });
    pane.prepend(h('div', { class: 'diverging-note', 'data-testid': 'diverging', text }));
    if (d.message !== null && !missing) part(this.root, 'messages').querySelector(`.msg[data-index="${d.message}"]`)?.classList.add('differs');
  }
}

/** The step whose records hold the transcript's line a problem names (`line N: …`); unknown: the last step. */
function problemStep(t: Timeline, problem: string): number {
  const line = Number(/line (\d+)/.exec(problem)?.[1] ?? NaN);
  if (Number.isNaN(line)) return t.steps.length - 1;
  // Line N of the file is record N - 1 in the order read (readOrder keeps the damaged lines it shows in place).
  const found = t.steps.findIndex((s) => line - 1 >= s.records[0] && line - 1 < s.records[1]);
  return found < 0 ? t.steps.length - 1 : found;
}

/** A note of the timeline (`prompt: …`, `run ended: …`) in the page's language; the values as recorded. */
function noteText(note: string, lang: Lang): string {
  const prompt = /^prompt: ([\s\S]*)$/.exec(note);
  if (prompt) return tr(lang, 'note.prompt', { text: prompt[1] });
  const ended = /^run ended: ([\s\S]*)$/.exec(note);
  return ended ? tr(lang, 'note.ended', { what: ended[1] }) : note;
}
