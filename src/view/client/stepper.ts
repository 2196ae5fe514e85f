/**
 * A stepped run (`agentloop --demo --step`, `-p … --step`): the run waits before each effect of the
 * chapter's loop until the learner lets it go on. The card says what it waits before (the request
 * about to be sent, with the messages it carries; the reply in hand, with its stop_reason and its
 * tool_use blocks, before the loop reads it; the tool about to run; the results about to be appended;
 * the answer about to go to the user), beside the state the page shows, and has the two ways on: Next
 * (this one) and Run to the end. The controls are words, no glyph that needs an emoji font.
 */
import type { Effect, StepperState } from '../../run/gate.js';
import { commandOf } from '../timeline/facts.js';
import type { Timeline } from '../timeline/build.js';
import { releaseStep } from './api.js';
import { h, highlightJson } from './dom.js';
import { tr, type Lang } from './lang.js';

const waits = (text: string) => h('p', { class: 'waits', 'data-testid': 'step-waits', text });

function describe(effect: Effect, t: Timeline | null, lang: Lang): HTMLElement[] {
  switch (effect.type) {
    case 'tool_start':
      return [
        waits(tr(lang, 'step.tool', { call: effect.display ?? `${effect.block.name}: ${commandOf(effect.block.input)}` })),
        h('p', { text: tr(lang, 'step.toolAfter', { id: effect.block.id }) }),
      ];
    case 'reply': {
      const uses = effect.calls ?? effect.content.flatMap((b) => (b.type === 'tool_use' ? [`${b.name}: ${commandOf(b.input)}`] : []));
      return [
        waits(tr(lang, 'step.reply', { turn: effect.turnCount, stopReason: String(effect.stopReason), count: uses.length, uses: uses.join('; ') })),
        h('p', { class: 'why', text: tr(lang, uses.length ? 'step.replyAfterTools' : 'step.replyAfterEnd', {}) }),
      ];
    }
    case 'append':
      return [
        waits(tr(lang, 'step.append', { count: effect.results.length, ids: effect.results.map((r) => r.tool_use_id).join(', ') })),
        h('p', { class: 'why', text: tr(lang, 'why.append', {}) }),
      ];
    case 'end':
      return [waits(tr(lang, 'step.end', { state: effect.state })), h('p', { class: 'why', text: tr(lang, 'why.wholeAgent', {}) })];
    case 'request': {
      const n = (t?.requests.length ?? 0) + 1;
      const roles = effect.body.messages.slice(0, effect.messageCount).map((m, i) => `messages[${i}] ${m.role}`).join(', ');
      const pre = h('pre', { class: 'json' });
      pre.innerHTML = highlightJson(effect.body.messages.slice(0, effect.messageCount));
      return [
        waits(tr(lang, 'step.request', { number: n, turn: effect.turnCount, count: effect.messageCount })),
        h('p', { text: roles }),
        h('details', {}, [h('summary', { text: tr(lang, 'step.requestMessages', {}) }), pre]),
      ];
    }
  }
}

function nextLabel(state: StepperState, lang: Lang): string {
  switch (state.waiting?.type) {
    case 'tool_start':
      return tr(lang, 'step.next.tool', {});
    case 'reply':
      return tr(lang, 'step.next.reply', {});
    case 'append':
      return tr(lang, 'step.next.append', {});
    case 'end':
      return tr(lang, 'step.next.end', {});
    default:
      return tr(lang, 'step.next.request', {});
  }
}

export function renderStepper(box: HTMLElement, state: StepperState, t: Timeline | null, lang: Lang): void {
  box.hidden = false;
  const next = h('button', { class: 'primary', 'data-testid': 'step-next', text: nextLabel(state, lang) }) as HTMLButtonElement;
  const run = h('button', { 'data-testid': 'step-run', text: tr(lang, 'step.runToEnd', {}) }) as HTMLButtonElement;
  next.disabled = state.waiting === null;
  run.disabled = state.mode === 'run' || state.ended;
  const act = (how: 'next' | 'run') => () => {
    next.disabled = true;
    run.disabled = true;
    releaseStep(how).catch((error: unknown) => box.append(h('p', { class: 'status err', text: String(error) })));
  };
  next.onclick = act('next');
  run.onclick = act('run');
  const head = h('h2', {}, [tr(lang, 'step.title', {}), ' ', h('span', { class: 'badge info', text: tr(lang, 'step.released', { count: state.released }) })]);
  const body = state.waiting
    ? describe(state.waiting, t, lang)
    : [waits(tr(lang, state.ended ? 'step.ended' : state.mode === 'run' ? 'step.running' : 'step.goingOn', {}))];
  box.replaceChildren(head, ...body, h('div', { class: 'actions' }, [next, run]));
}
