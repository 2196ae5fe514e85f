/**
 * The simulator page (issue 39, the course site's second layer): one self-contained file, no server. The learner
 * edits a script (the model's replies, bash's outputs), Run plays it on the real machine (../sim/simulate.ts) and the
 * run is drawn as a recorded one is: the records it would leave, read by timeline/build.ts, drawn by TimelineView.
 */
import './main.css';
import './simulator.css';
import type { MachineGraph } from '../../diagram/graph.js';
import { buildTimeline, type Timeline } from '../timeline/build.js';
import { PRESETS, PRESET_NAMES } from '../sim/presets.js';
import { parseScript } from '../sim/script.js';
import { scriptFragment, scriptFromFragment } from '../sim/scriptLink.js';
import { simulate } from '../sim/simulate.js';
import type { MachineView } from './api.js';
import { h } from './dom.js';
import { applyStatic, initialLang, keepLang, tr, type Lang } from './lang.js';
import { TimelineView } from './view.js';

/** What the build put in the page: the machine's diagram and the graph it was laid out from. */
interface SimConfig {
  view: MachineView;
  graph: MachineGraph;
}

const config = JSON.parse(document.getElementById('agentloop-sim')?.textContent ?? '{}') as SimConfig;
const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
let lang: Lang = initialLang();
let status: { key: 'sim.refused' | 'sim.bad' | 'sim.ran'; params: Record<string, string | number> } | null = null;

const view = new TimelineView(document.querySelector('[data-view="0"]') as HTMLElement, config.view, { startAtEnd: false, lang });
const script = $<HTMLTextAreaElement>('script');
const preset = $<HTMLSelectElement>('preset');

function showStatus(): void {
  $('sim-status').textContent = status ? tr(lang, status.key, status.params) : '';
}

function load(name: string): void {
  script.value = JSON.stringify(PRESETS[name], null, 2);
}

function summary(timeline: Timeline): Record<string, string | number> {
  const result = timeline.results.at(-1);
  return { count: timeline.steps.length, number: timeline.requests.length, state: result?.state ?? '—', exit: result?.exitReason ?? '—' };
}

async function run(): Promise<void> {
  let parsed;
  try {
    parsed = parseScript(script.value);
  } catch (error) {
    status = { key: 'sim.bad', params: { problem: (error as Error).message } };
    showStatus();
    return;
  }
  // The script as run is kept in the address: a reload or a shared link plays it again.
  history.replaceState(null, '', scriptFragment(script.value));
  const simulation = await simulate(parsed);
  const timeline = buildTimeline(simulation.records, config.graph);
  view.update(timeline);
  view.go(0);
  status = simulation.refused ? { key: 'sim.refused', params: { problem: simulation.refused } } : { key: 'sim.ran', params: summary(timeline) };
  showStatus();
  document.body.dataset.runs = String(Number(document.body.dataset.runs ?? '0') + 1);
}

function start(): void {
  applyStatic(document, lang);
  $('lang').onclick = () => {
    lang = lang === 'zh' ? 'en' : 'zh';
    keepLang(lang);
    applyStatic(document, lang);
    view.setLang(lang);
    showStatus();
  };
  for (const name of PRESET_NAMES) preset.append(h('option', { value: name, text: name }));
  preset.onchange = () => load(preset.value);
  const linked = scriptFromFragment(location.hash);
  if (linked === null) load(PRESET_NAMES[0] as string);
  else script.value = linked;
  $('run').onclick = () => void run();
  document.addEventListener('keydown', (e) => {
    if ((e.target as HTMLElement | null)?.tagName === 'TEXTAREA') return;
    if (e.key === 'ArrowRight') view.go(view.step + 1);
    else if (e.key === 'ArrowLeft') view.go(view.step - 1);
  });
  void run().then(() => (document.body.dataset.loaded = 'true'));
}

start();
