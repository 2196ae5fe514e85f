/**
 * The viewer page: one timeline view of the chosen session, the session picker, the keyboard; or,
 * with `compare=A,B`, two views side by side with their first diverging request marked.
 */
import './main.css';
import { fetchMachine, fetchSessions, followSession, type MachineView } from './api.js';
import { describeDivergence, firstDivergence } from './compare.js';
import { h, part } from './dom.js';
import { TimelineView } from './view.js';

interface PageConfig {
  defaultSession: string | null;
  startAtEnd?: boolean;
  compare?: [string, string];
}

const FINAL = new Set(['done', 'failed', 'aborted']);
const config = JSON.parse(document.getElementById('agentloop-config')?.textContent ?? '{}') as PageConfig;
const $ = (id: string) => document.getElementById(id) as HTMLElement;

function showMeta(view: TimelineView): void {
  const t = view.timeline;
  const header = t?.header;
  $('meta').textContent = header ? `session ${header.id} · ${header.cwd} · model ${header.model} · ${header.createdAt}` : '';
  const last = t?.steps.at(-1);
  $('live').hidden = !!(t && t.results.length && last && FINAL.has(last.state));
}

async function loadSessions(current: string | null): Promise<void> {
  const select = $('sessions') as HTMLSelectElement;
  const list = await fetchSessions();
  select.replaceChildren();
  if (!list.length) select.append(h('option', { text: 'no sessions yet' }));
  for (const s of list) {
    const label = `${s.updatedAt.slice(0, 16).replace('T', ' ')} · ${(s.firstPrompt || '(no prompt)').slice(0, 50)} · ${s.id.slice(0, 8)}`;
    const option = h('option', { value: s.id, text: label }) as HTMLOptionElement;
    option.selected = s.id === current;
    select.append(option);
  }
  select.onchange = () => {
    const params = new URLSearchParams(location.search);
    params.set('session', select.value);
    location.search = params.toString();
  };
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
  const views = [first, second].map((root, i) => {
    part(root, 'view-title').textContent = `${i === 0 ? 'A' : 'B'} · session ${ids[i]?.slice(0, 8)}`;
    return new TimelineView(root, machine, { startAtEnd: false });
  });
  bindKeys(views);
  $('meta').textContent = `comparing A ${ids[0]} with B ${ids[1]}`;
  const banner = $('compare');
  banner.hidden = false;
  const loaded = new Set<number>();
  const update = () => {
    const [a, b] = views.map((v) => v.timeline);
    if (!a || !b) return;
    const d = firstDivergence(a, b);
    views.forEach((view) => {
      view.divergence = d ? { request: d.request, message: d.message } : null;
      view.go(view.step);
    });
    part(banner, 'compare-text').textContent = describeDivergence(d);
    const go = part<HTMLButtonElement>(banner, 'compare-go');
    go.hidden = d === null;
    go.onclick = () => d && views.forEach((view, i) => view.go(d.steps[i] ?? 0));
    if (loaded.size === 2) document.body.dataset.loaded = 'true';
  };
  ids.forEach((id, i) =>
    followSession(id, (timeline) => {
      views[i]?.update(timeline);
      loaded.add(i);
      update();
    }),
  );
}

async function start(): Promise<void> {
  const machine = await fetchMachine();
  const compare = new URLSearchParams(location.search).get('compare')?.split(',') ?? config.compare;
  if (compare?.length === 2) return startCompare(machine, compare as [string, string]);
  const view = new TimelineView(document.querySelector('[data-view="0"]') as HTMLElement, machine, { startAtEnd: config.startAtEnd === true });
  bindKeys([view]);
  const id = new URLSearchParams(location.search).get('session') ?? config.defaultSession;
  if (id) {
    followSession(id, (timeline) => {
      view.update(timeline);
      showMeta(view);
      document.body.dataset.loaded = 'true';
    });
  } else {
    document.querySelector('[data-testid="messages"]')?.append(h('div', { class: 'empty', text: 'No session recorded yet: run agentloop -p "..." first.' }));
    document.body.dataset.loaded = 'true';
  }
  await loadSessions(id);
}

void start();
