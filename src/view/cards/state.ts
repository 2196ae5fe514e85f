/**
 * The state card: the state the loop carries ({messages, turnCount, transitionReason}), with messages feeding the
 * request body; the line under it says which request that is (sent at this step, the next one's body, or none after
 * the end).
 */
import type { TransitionReason } from '../../core/outcome.js';
import { deltaLine } from '../lesson/delta.js';
import type { AnyLine, P } from '../texts/params.js';
import { FINAL_STATES, messagesAt, requestDelta, requestMessages } from '../timeline/history.js';
import type { Timeline, TimelineStep } from '../timeline/shape.js';
import { defineCard, phrasebook, type Kit } from './card.js';

const { texts, line } = phrasebook(
  {
    'card.state.title': () => 'The loop’s state',
    'card.state.badge': () => 'turnCount and transitionReason are never sent',
    'card.state.sent': (p: P) => `request ${p.number}, sent at this step: { model, max_tokens, system, tools, messages: ${p.count} } · ${p.delta}`,
    'card.state.next': (p: P) => `the next request’s body: { model, max_tokens, system, tools, messages: ${p.count} }${p.last ? ` (request ${p.last} was the last sent)` : ' (none sent yet)'}`,
    'card.state.ended': (p: P) => `the run has ended: no request follows${p.last ? ` (request ${p.last} was the last sent)` : ''}`,
  },
  {
    'card.state.title': () => '循环的 state',
    'card.state.badge': () => 'turnCount 和 transitionReason 从不发送',
    'card.state.sent': (p: P) => `请求 ${p.number}，在这一步发出：{ model, max_tokens, system, tools, messages: ${p.count} } · ${p.delta}`,
    'card.state.next': (p: P) => `下一个请求的 body：{ model, max_tokens, system, tools, messages: ${p.count} }${p.last ? `（上一个发出的是请求 ${p.last}）` : '（还没有发出请求）'}`,
    'card.state.ended': (p: P) => `运行已结束：之后没有请求${p.last ? `（最后发出的是请求 ${p.last}）` : ''}`,
  },
);

interface StateCard {
  /** messages[] at the step: index, role, new at this step, written broken; then those deleted by now. */
  history: Array<{ index: number; role: string; fresh: boolean; broken: boolean }>;
  gone: number[];
  turnCount: number;
  transitionReason: TransitionReason | null;
  feeds: AnyLine;
}

/** The line under the state card: the request sent at this step, built from state.messages; or the next one's; or none. */
export function feedsLine(t: Timeline, i: number): AnyLine {
  const k = t.requests.findIndex((r) => r.step === i);
  if (k >= 0) {
    const req = t.requests[k] as Timeline['requests'][number];
    const delta = k === 0 ? { key: 'delta.first', params: {} } : deltaLine({ number: k + 1, ...requestDelta(t, k) });
    return line('card.state.sent', { number: k + 1, count: requestMessages(t, req).length, delta });
  }
  const count = messagesAt(t, i).length;
  const last = t.requests.reduce((found, r, j) => (r.step <= i ? j + 1 : found), 0);
  if (FINAL_STATES.has(t.steps[i]?.state ?? '')) return line('card.state.ended', { last });
  return line('card.state.next', { count, last });
}

function facts(t: Timeline, i: number): StateCard {
  const step = t.steps[i] as TimelineStep;
  return {
    history: messagesAt(t, i).map((m) => ({ index: m.index, role: m.message.role, fresh: m.step === i, broken: !!m.broken })),
    gone: t.messages.filter((m) => m.removedAt !== undefined && m.removedAt <= i).map((m) => m.index),
    turnCount: step.turnCount,
    transitionReason: step.transitionReason,
    feeds: feedsLine(t, i),
  };
}

/** `state = { messages: [...], turnCount, transitionReason }` as code, the messages as chips. */
function stateCode<N>(c: StateCard, kit: Kit<N>): N {
  const chips = c.history.map((m) =>
    kit.h('span', { class: `mchip ${m.role}${m.fresh ? ' new' : ''}${m.broken ? ' broken' : ''}`, title: `messages[${m.index}]`, text: `${m.index} ${m.role}${m.broken ? ' ⚠' : ''}` }),
  );
  const gone = c.gone.map((index) => kit.h('span', { class: 'mchip deleted', text: `${index} ✂` }));
  const key = (text: string) => kit.h('span', { class: 'key', text });
  return kit.h('div', { class: 'state-code', 'data-testid': 'state-code' }, [
    kit.h('div', { class: 'line' }, ['state = {']),
    kit.h('div', { class: 'line in' }, [key('messages:'), ' [', ...chips, ...gone, `] (${c.history.length})`]),
    kit.h('div', { class: 'line in' }, [key('turnCount:'), ' ', kit.h('b', { 'data-testid': 'turnCount', text: String(c.turnCount) }), ',']),
    kit.h('div', { class: 'line in' }, [key('transitionReason:'), ' ', kit.h('b', { 'data-testid': 'transitionReason', text: JSON.stringify(c.transitionReason) })]),
    kit.h('div', { class: 'line' }, ['}']),
  ]);
}

export const stateCard = defineCard<StateCard>({
  name: 'state',
  classes: 'never-sent',
  texts,
  facts,
  lines: (c) => [{ items: [{ line: c.feeds, testid: 'request-delta' }] }],
  draw: (c, kit) => [
    kit.h('h2', {}, [kit.say(line('card.state.title')), ' ', kit.h('span', { class: 'badge', text: kit.say(line('card.state.badge')) })]),
    stateCode(c, kit),
    kit.h('div', { class: 'feeds', 'data-testid': 'feeds' }, [kit.h('span', { class: 'arrow', text: '└─ messages ─▶' }), ' ', kit.h('span', { 'data-testid': 'request-delta', 'data-line': '', text: kit.say(c.feeds) })]),
  ],
});
