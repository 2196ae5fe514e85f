/** The viewer page: one timeline view of the chosen session, the session picker, the keyboard. */
import './main.css';
import { fetchMachine, fetchSessions, followSession } from './api.js';
import { h } from './dom.js';
import { TimelineView } from './view.js';

interface PageConfig {
  defaultSession: string | null;
  startAtEnd?: boolean;
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

async function start(): Promise<void> {
  const machine = await fetchMachine();
  const view = new TimelineView(document.querySelector('[data-view="0"]') as HTMLElement, machine, { startAtEnd: config.startAtEnd === true });
  document.addEventListener('keydown', (e) => {
    const tag = (e.target as HTMLElement | null)?.tagName;
    if (tag === 'SELECT' || tag === 'INPUT') return;
    if (e.key === 'ArrowRight') view.go(view.step + 1);
    else if (e.key === 'ArrowLeft') view.go(view.step - 1);
    else if (e.key === 'Home') view.go(0);
    else if (e.key === 'End') view.go(view.count() - 1);
    else return;
    e.preventDefault();
  });
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
