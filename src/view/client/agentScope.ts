/**
 * Stepping into a subagent's run (issue 38): the Agent call's tool card has a "step into" button; the view then shows
 * the child's timeline (its steps, requests, messages; timeline/agents.ts), with a bar that says whose run it is and
 * steps back to the parent's step it came from. The hash says where the page is (`#agent=ID&from=STEP&step=STEP`, an
 * `agent`/`from` pair per level), so a reload, a link or the browser's back keep it.
 */
import type { Timeline, TimelineAgent } from '../timeline/shape.js';
import { h } from './dom.js';
import { tr, type Lang } from './lang.js';
import type { TimelineView } from './view.js';

interface Scope {
  /** The Agent calls stepped into, outermost first, each with the parent's step (0-based) it was stepped into from. */
  path: Array<{ toolUseId: string; from: number }>;
  /** The step shown (0-based), when the hash names one. */
  step: number | null;
}

const count = (value: string | null | undefined) => (value !== null && value !== undefined && /^\d{1,9}$/.test(value) ? Number(value) : null);

export function readScope(hash: string): Scope {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const froms = params.getAll('from');
  return { path: params.getAll('agent').map((toolUseId, k) => ({ toolUseId, from: count(froms[k]) ?? 0 })), step: count(params.get('step')) };
}

export function writeScope(scope: Scope): string {
  const params = new URLSearchParams();
  for (const level of scope.path) {
    params.append('agent', level.toolUseId);
    params.append('from', String(level.from));
  }
  if (scope.step !== null) params.set('step', String(scope.step));
  const text = params.toString();
  return text ? `#${text}` : '';
}

/** The timeline the path leads to (as far as the run has got: a live child may not have started yet), and the levels on the way. */
export function resolveScope(root: Timeline, path: Scope['path']): { timeline: Timeline; trail: Array<{ agent: TimelineAgent; from: number }> } {
  let timeline = root;
  const trail: Array<{ agent: TimelineAgent; from: number }> = [];
  for (const level of path) {
    const agent = timeline.agents?.find((a) => a.toolUseId === level.toolUseId);
    if (!agent) break;
    trail.push({ agent, from: level.from });
    timeline = agent.timeline;
  }
  return { timeline, trail };
}

/** The session's timeline shown at the hash's level; the bar over the view while in a child. */
export class AgentScope {
  /** The session's own (outermost) timeline. */
  root: Timeline | null = null;
  private scope = readScope(location.hash);

  constructor(
    private readonly view: TimelineView,
    private readonly bar: HTMLElement,
    private readonly lang: () => Lang,
  ) {
    view.root.addEventListener('click', (e) => {
      const into = (e.target as HTMLElement | null)?.closest<HTMLElement>('[data-step-into]')?.dataset.stepInto;
      if (into !== undefined) this.move({ path: [...this.scope.path, { toolUseId: into, from: view.step }], step: 0 });
    });
    window.addEventListener('hashchange', () => {
      this.scope = readScope(location.hash);
      this.show(true);
    });
    view.onGo = (step) => {
      if (!this.scope.path.length && this.scope.step === null) return;
      this.scope.step = step;
      history.replaceState(history.state, '', `${location.pathname}${location.search}${writeScope(this.scope)}`);
    };
  }

  /** The session's timeline, now and whenever it grows. */
  update(root: Timeline): void {
    const first = this.root === null;
    this.root = root;
    this.show(first);
  }

  /** The bar in the page's language. */
  redraw(): void {
    if (this.root) this.drawBar(resolveScope(this.root, this.scope.path).trail);
  }

  private move(scope: Scope): void {
    location.hash = writeScope(scope);
  }

  /** Shows the level the hash names: at its step when it was moved to (or loaded with one), else as it grows. */
  private show(moved: boolean): void {
    if (!this.root) return;
    const { timeline, trail } = resolveScope(this.root, this.scope.path);
    this.drawBar(trail);
    if (moved && (this.scope.step !== null || trail.length)) {
      this.view.follow = false;
      this.view.timeline = timeline;
      this.view.go(this.scope.step ?? 0);
    } else this.view.update(timeline);
  }

  private drawBar(trail: Array<{ agent: TimelineAgent; from: number }>): void {
    const here = trail.at(-1);
    this.bar.hidden = !here;
    if (!here) return this.bar.replaceChildren();
    const lang = this.lang();
    const names = ['main', ...trail.map((level) => level.agent.agentType)].join(' › ');
    const back = h('button', { 'data-testid': 'step-back', text: tr(lang, 'agent.back', { step: here.from + 1 }) });
    back.onclick = () => this.move({ path: this.scope.path.slice(0, trail.length - 1), step: here.from });
    this.bar.replaceChildren(
      h('div', { 'data-testid': 'agent-where', text: tr(lang, 'agent.where', { names, name: here.agent.agentType, text: here.agent.description, id: here.agent.toolUseId, state: here.agent.state }) }),
      back,
    );
  }
}
