/**
 * The viewer page: one timeline view of the chosen session, the session picker, the keyboard; or,
 * with `compare=A,B`, two views side by side with their first diverging request marked.
 */
import './main.css';
import { fetchMachine, fetchSessions, followSession, type MachineView, type SessionSummary } from './api.js';
import { describeDivergence, firstDivergence } from './compare.js';
import { h, part } from './dom.js';
import { applyStatic, initialLang, keepLang, tr, type Lang } from './lang.js';
import { renderStepper } from './stepper.js';
import { renderApprovals } from './approvals.js';
import type { WaitingCallView } from '../server/approvals.js';
import { TimelineView } from './view.js';
import { AgentScope } from './agentScope.js';
import type { StepperState } from '../../run/gate.js';
import type { Timeline } from '../timeline/shape.js';
import { FINAL_STATES as FINAL } from '../timeline/history.js';

interface PageConfig {
  defaultSession: string | null;
  /** How to run agentloop, as the command the page offers (the CLI's own: runs as printed). */
  command?: string;
  startAtEnd?: boolean;
  compare?: [string, string];
  /** A stepped run: the page lets it go on (stepper.ts). */
  stepping?: boolean;
  /** A durable run (`view --restate`): the page shows its calls that wait for an approval (approvals.ts). */
  approvals?: boolean;
  /** The language asked for on the command line (`--lang`); else the browser's. */
  lang?: string;
}

const config = JSON.parse(document.getElementById('agentloop-config')?.textContent ?? '{}') as PageConfig;
const $ = (id: string) => document.getElementById(id) as HTMLElement;
let lang: Lang = initialLang(config.lang);
/** Whatever shows text redraws itself in the new language. */
const redraws: Array<() => void> = [];

/** The switch in the header: the other language, kept for the next visit. */
function bindLang(): void {
  applyStatic(document, lang);
  $('lang').onclick = () => {
    lang = lang === 'zh' ? 'en' : 'zh';
    keepLang(lang);
    applyStatic(document, lang);
    for (const redraw of redraws) redraw();
  };
}

function showMeta(t: Timeline | null): void {
  const header = t?.header;
  const meta = $('meta');
  meta.textContent = header ? `session ${header.id.slice(0, 8)}${header.label ? ` · ${header.label}` : ''} · model ${header.model} · ${header.cwd}` : '';
  meta.title = header ? `session ${header.id}, started ${header.createdAt}` : '';
  const last = t?.steps.at(-1);
  $('live').hidden = !!(t && t.results.length && last && FINAL.has(last.state));
}

/** What tells runs apart: when, the label (a demo, a mistake), turns and how it ended, then the prompt. */
export function sessionLabel(s: SessionSummary): string {
  const when = new Date(s.updatedAt).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  // The list reads headers only (how a run ended needs the transcript's end): turns and the end when given.
  const turns = !s.turns ? '' : ` · ${tr(lang, 'pick.turns', { count: s.turns })}`;
  const end = s.running ? ` · ${tr(lang, 'pick.running', { pid: s.running.pid })}` : s.exitReason ? ` · ${s.exitReason}` : '';
  return `${when}${s.label ? ` · ${s.label}` : ''}${turns}${end} · ${(s.firstPrompt || tr(lang, 'pick.noPrompt')).slice(0, 40)} · ${s.id.slice(0, 8)}`;
}

async function loadSessions(current: string | null): Promise<void> {
  const select = $('sessions') as HTMLSelectElement;
  const list = await fetchSessions();
  select.replaceChildren();
  if (!list.length) select.append(h('option', { text: tr(lang, 'page.noSessions') }));
  for (const s of list) {
    const option = h('option', { value: s.id, text: sessionLabel(s) }) as HTMLOptionElement;
    option.selected = s.id === current;
    select.append(option);
  }
  select.onchange = () => {
    const params = new URLSearchParams(location.search);
    params.set('session', select.value);
    location.search = params.toString();
  };
  document.body.dataset.sessions = 'true';
}

/** The arrow keys, Home and End step every view. */
function bindKeys(views: TimelineView[]): void {
  document.addEventListener('keydown', (e) => {
    const tag = (e.target as HTMLElement | null)?.tagName;
    if (tag === 'SELECT' || tag === 'INPUT') return;
    for (const view of views) {
      if (e.key === 'ArrowRight') view.go(view.step + 1);
      else if (e.key === 'ArrowLeft') view.go(view.step - 1);
      else if (e.key === 'Home') view.go(0);
      else if (e.key === 'End') view.go(view.count() - 1);
      else return;
    }
    e.preventDefault();
  });
}

/** Two sessions side by side (A left, B right), each stepped on its own or both by the keys. */
function startCompare(machine: MachineView, ids: [string, string]): void {
  document.body.classList.add('comparing');
  ($('sessions') as HTMLSelectElement).hidden = true;
  const first = document.querySelector('[data-view="0"]') as HTMLElement;
  const second = first.cloneNode(true) as HTMLElement;
  second.dataset.view = '1';
  first.after(second);
  const labels: Array<string | undefined> = [undefined, undefined];
  const title = (view: TimelineView, i: number) =>
    (part(view.root, 'view-title').textContent = tr(lang, 'view.side', { side: i === 0 ? 'A' : 'B', label: labels[i], id: ids[i]?.slice(0, 8) }));
  const views = [first, second].map((root) => new TimelineView(root, machine, { startAtEnd: false, lang }));
  views.forEach(title);
  bindKeys(views);
  stepTogether(views, part<HTMLInputElement>($('compare'), 'both'));
  const meta = () => ($('meta').textContent = tr(lang, 'compare.meta', { a: ids[0], b: ids[1] }));
  meta();
  const banner = $('compare');
  banner.hidden = false;
  const loaded = new Set<number>();
  let shown: ReturnType<typeof firstDivergence> = null;
  redraws.push(() => {
    meta();
    views.forEach((view, i) => {
      title(view, i);
      view.setLang(lang);
    });
    part(banner, 'compare-text').textContent = describeDivergence(shown, lang);
  });
  const update = () => {
    const [a, b] = views.map((v) => v.timeline);
    if (!a || !b) return;
    const d = firstDivergence(a, b);
    views.forEach((view) => {
      view.divergence = d ? { request: d.request, message: d.message } : null;
      view.go(view.step);
    });
    shown = d;
    part(banner, 'compare-text').textContent = describeDivergence(d, lang);
    const go = part<HTMLButtonElement>(banner, 'compare-go');
    go.hidden = d === null;
    go.onclick = () => d && views.forEach((view, i) => view.go(d.steps[i] ?? 0));
    if (loaded.size === 2) document.body.dataset.loaded = 'true';
  };
  ids.forEach((id, i) =>
    followSession(id, (timeline) => {
      const view = views[i] as TimelineView;
      labels[i] = timeline.header?.label;
      title(view, i);
      view.update(timeline);
      loaded.add(i);
      update();
    }),
  );
}

/** Compare: with "Step both" on, each view's buttons step both views (one tap on a phone moves both sides). */
function stepTogether(views: TimelineView[], both: HTMLInputElement): void {
  const moves: Record<string, (v: TimelineView) => number> = { first: () => 0, prev: (v) => v.step - 1, next: (v) => v.step + 1, last: (v) => v.count() - 1 };
  for (const view of views) {
    for (const [id, to] of Object.entries(moves)) part<HTMLButtonElement>(view.root, id).onclick = () => (both.checked ? views : [view]).forEach((v) => v.go(to(v)));
  }
}

/**
 * `view --restate`: the card of the durable run's calls that wait for an approval, drawn as the list changes, each
 * second while one waits (the time waited), and in a new language; the listener of the list.
 */
function approvalsCard(view: TimelineView): ((calls: WaitingCallView[]) => void) | undefined {
  if (!config.approvals) return undefined;
  const box = part(view.root, 'approvals');
  let calls: WaitingCallView[] = [];
  const draw = () => renderApprovals(box, calls, lang);
  redraws.push(draw);
  setInterval(() => calls.some((call) => call.state === 'waiting') && draw(), 1000);
  return (list) => {
    calls = list;
    draw();
    // The tool card of each call that waits says so (the timeline's records cannot: the wait is Restate's).
    view.setWaiting(list.filter((call) => call.state === 'waiting').map((call) => call.toolUseId));
  };
}

async function start(): Promise<void> {
  bindLang();
  const machine = await fetchMachine();
  const compare = new URLSearchParams(location.search).get('compare')?.split(',') ?? config.compare;
  if (compare?.length === 2) return startCompare(machine, compare as [string, string]);
  const view = new TimelineView(document.querySelector('[data-view="0"]') as HTMLElement, machine, { startAtEnd: config.startAtEnd === true, lang });
  bindKeys([view]);
  const id = new URLSearchParams(location.search).get('session') ?? config.defaultSession;
  if (id) {
    const stepper = part(view.root, 'stepper');
    let step: StepperState | null = null;
    let listed = false;
    let ended = false;
    const scope = new AgentScope(view, part(view.root, 'agent-bar'), () => lang);
    // The picker's list is asked for once the session is shown (or cannot be): thousands of sessions never delay it;
    // and once more when the run it shows ends (it was listed as running).
    const list = () => {
      const last = scope.root?.steps.at(-1);
      const over = !!(scope.root?.results.length && last && FINAL.has(last.state));
      if (!listed || (over && !ended)) void loadSessions(id);
      // The lock of a run that just ended is let go right after its last record: ask once more a little later.
      if (over && !ended) setTimeout(() => void loadSessions(id), 1500);
      listed = true;
      ended ||= over;
    };
    redraws.push(() => {
      view.setLang(lang);
      scope.redraw();
      if (step) renderStepper(stepper, step, scope.root, lang);
      if (listed) void loadSessions(id);
    });
    const source = followSession(
      id,
      (timeline) => {
        scope.update(timeline);
        showMeta(timeline);
        if (step) renderStepper(stepper, step, timeline, lang);
        document.body.dataset.loaded = 'true';
        list();
      },
      config.stepping
        ? (state) => {
            step = state;
            renderStepper(stepper, state, scope.root, lang);
          }
        : undefined,
      approvalsCard(view),
    );
    source.addEventListener('error', list);
  } else {
    document.querySelector('[data-testid="messages"]')?.append(h('div', { class: 'empty', 'data-testid': 'no-session', text: tr(lang, 'page.noSession', { command: config.command ?? 'agentloop' }) }));
    document.body.dataset.loaded = 'true';
    await loadSessions(id);
  }
}

void start();
