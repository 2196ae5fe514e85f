/**
 * A stepped run (`agentloop --demo --step`, `-p … --view --step`): the run waits before each
 * effect until the learner lets it go on. The card says what it waits before (the request about
 * to be sent, with the messages it carries; the tool about to run), beside the state the page
 * shows, and has the two ways on: Next (this one) and Run to the end.
 */
import type { Effect, StepperState } from '../../run/gate.js';
import type { Timeline } from '../timeline.js';
import { releaseStep } from './api.js';
import { h, highlightJson } from './dom.js';

function describe(effect: Effect, t: Timeline | null): HTMLElement[] {
  if (effect.type === 'tool_start') {
    const command = (effect.block.input as { command?: unknown } | null)?.command;
    return [
      h('p', { class: 'waits', 'data-testid': 'step-waits', text: `⏸ The run waits before running a tool: ${effect.block.name}: ${typeof command === 'string' ? command : JSON.stringify(effect.block.input)}` }),
      h('p', { text: `Its output will be wrapped into a tool_result bound to tool_use_id ${effect.block.id}.` }),
    ];
  }
  const n = (t?.requests.length ?? 0) + 1;
  const roles = effect.body.messages.slice(0, effect.messageCount).map((m, i) => `messages[${i}] ${m.role}`).join(', ');
  const pre = h('pre', { class: 'json' });
  pre.innerHTML = highlightJson(effect.body.messages.slice(0, effect.messageCount));
  return [
    h('p', { class: 'waits', 'data-testid': 'step-waits', text: `⏸ The run waits before sending request ${n} (turn ${effect.turnCount}) to the model: state.messages (${effect.messageCount}) and the tool definitions.` }),
    h('p', { text: roles }),
    h('details', {}, [h('summary', { text: 'the messages about to be sent' }), pre]),
  ];
}

export function renderStepper(box: HTMLElement, state: StepperState, t: Timeline | null): void {
  box.hidden = false;
  const next = h('button', { class: 'primary', 'data-testid': 'step-next', text: state.waiting?.type === 'tool_start' ? 'Next: run it ▶' : 'Next: send it ▶' }) as HTMLButtonElement;
  const run = h('button', { 'data-testid': 'step-run', text: 'Run to the end ⏭' }) as HTMLButtonElement;
  next.disabled = state.waiting === null;
  run.disabled = state.mode === 'run';
  const act = (how: 'next' | 'run') => () => {
    next.disabled = true;
    run.disabled = true;
    releaseStep(how).catch((error: unknown) => box.append(h('p', { class: 'status err', text: String(error) })));
  };
  next.onclick = act('next');
  run.onclick = act('run');
  const head = h('h2', {}, ['Stepping the live run ', h('span', { class: 'badge info', text: `${state.released} let through` })]);
  const body = state.waiting
    ? describe(state.waiting, t)
    : [h('p', { 'data-testid': 'step-waits', text: state.mode === 'run' ? '▶ Running to the end: no more stops.' : '▶ The run goes on to its next effect…' })];
  box.replaceChildren(head, ...body, h('div', { class: 'actions' }, [next, run]));
}
