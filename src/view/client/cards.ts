/**
 * The lesson's cards for one step, drawn from what ../cardLines.ts says of it: the reply (stop_reason
 * as received, tool_use blocks counted, needsFollowUp, what the chapter's check would have done), the
 * tools (the output wrapped into a tool_result bound to its tool_use_id, and when each started), and
 * the state the loop carries ({messages, turnCount, transitionReason}) with the request body built
 * from its messages.
 */
import { feedsLine, replyCard, toolEntry, turnStarts, type CardItem } from '../cardLines.js';
import { messagesAt } from '../history.js';
import type { Timeline, TimelineStep, TimelineTool } from '../timeline/build.js';
import { h } from './dom.js';
import { render, tr, type Lang } from './lang.js';
import { resultContent } from './media.js';

/** One card line: the name and value as recorded, what it means in the page's language. */
function item(it: CardItem, lang: Lang): HTMLElement {
  const note = it.line ? render(lang, it.line) : '';
  const tone = it.tone ? ` ${it.tone}` : '';
  if (it.name === undefined) return h('div', { class: `status${tone}`, ...(it.testid ? { 'data-testid': it.testid } : {}), text: note });
  return h('div', { class: `kv${tone}` }, [
    h('span', { class: 'k', text: it.name }),
    h('b', { class: 'v', text: it.value ?? '', ...(it.testid ? { 'data-testid': it.testid } : {}) }),
    note ? h('span', { class: 'note', text: note }) : null,
  ]);
}

/** The reply card, on a reply step (else hidden). */
export function renderReply(box: HTMLElement, step: TimelineStep, lang: Lang): void {
  const card = replyCard(step);
  box.hidden = !card;
  if (!card) return;
  const [stop, uses, flag, ...rest] = card.items.map((it) => item(it, lang));
  const { runs, agrees } = card.teaching;
  box.replaceChildren(
    h('h2', {}, [h('span', { class: 'mark', text: step.lesson.marks }), render(lang, card.title)]),
    ...[stop, uses].filter((x): x is HTMLElement => x !== undefined),
    h('div', { class: `teaching ${agrees ? 'agrees' : 'disagrees'}`, 'data-testid': 'teaching' }, [
      h('b', { text: `${tr(lang, 'card.teaching.lead')} ` }),
      h('code', { text: 'if response.stop_reason != "tool_use": return' }),
      ` ${tr(lang, 'card.teaching.would', { runs, agrees })}`,
    ]),
    ...[flag, ...rest].filter((x): x is HTMLElement => x !== undefined),
  );
}

/** The tools of this step's turn, as they stand at this step (hidden when the turn has none yet). */
export function renderTools(box: HTMLElement, t: Timeline, i: number, lang: Lang): void {
  const starts = turnStarts(t, i);
  box.hidden = starts.length === 0;
  if (box.hidden) return;
  box.replaceChildren(h('h2', {}, [h('span', { class: 'mark', text: '⑤' }), tr(lang, 'card.tool.title')]), ...starts.map((s) => toolBox(t, s, i, lang)));
}

function toolBox(t: Timeline, start: TimelineTool, i: number, lang: Lang): HTMLElement {
  const entry = toolEntry(t, start, i);
  const lines = entry.items.map((it) => item(it, lang));
  const wrapped = entry.result ? wrappedResult(entry.result.result) : [];
  // The wrapped result follows the line that announces it.
  const at = lines.findIndex((_, k) => entry.items[k]?.line?.key.startsWith('card.tool.wrapped'));
  if (at >= 0) lines.splice(at + 1, 0, ...wrapped);
  // An Agent call: its child's run is a timeline of its own, one step away (agentScope.ts answers the button).
  const child = t.agents?.find((a) => a.toolUseId === start.id);
  return h('div', { class: 'tool-entry', 'data-tool': start.id }, [
    h('div', { class: 'tool-head', 'data-testid': 'tool-head' }, [
      ...(entry.head.name !== undefined ? [h('b', { text: entry.head.name }), ' '] : []),
      h('code', { text: entry.head.call }),
      h('span', { class: 'chip', text: start.id }),
    ]),
    child ? h('button', { class: 'step-into', 'data-testid': 'step-into', 'data-step-into': child.toolUseId, text: tr(lang, 'card.tool.stepInto', { name: child.agentType }) }) : null,
    ...lines,
  ]);
}

/** The tool_result as written: its fields as JSON, then its content with text as text and images drawn. */
function wrappedResult(result: TimelineTool['result']): HTMLElement[] {
  const { content, ...fields } = result ?? ({} as NonNullable<TimelineTool['result']>);
  const shape = typeof content === 'string' ? 'text' : `${content?.length ?? 0} block${content?.length === 1 ? '' : 's'}`;
  return [h('pre', { class: 'json', text: JSON.stringify({ ...fields, content: `‹${shape}›` }, null, 1) }), h('div', { class: 'result-content', 'data-testid': 'tool-content' }, resultContent(content))];
}

/** `{messages, turnCount, transitionReason}` with messages feeding the request body. */
export function renderState(box: HTMLElement, t: Timeline, i: number, lang: Lang): void {
  const step = t.steps[i] as TimelineStep;
  const history = messagesAt(t, i);
  const chips = history.map((m) =>
    h('span', { class: `mchip ${m.message.role}${m.step === i ? ' new' : ''}${m.broken ? ' broken' : ''}`, title: `messages[${m.index}]`, text: `${m.index} ${m.message.role}${m.broken ? ' ⚠' : ''}` }),
  );
  const gone = t.messages.filter((m) => m.removedAt !== undefined && m.removedAt <= i).map((m) => h('span', { class: 'mchip deleted', text: `${m.index} ✂` }));
  box.replaceChildren(
    h('h2', {}, [tr(lang, 'card.state.title'), ' ', h('span', { class: 'badge', text: tr(lang, 'card.state.badge') })]),
    h('div', { class: 'state-code', 'data-testid': 'state-code' }, [
      h('div', { class: 'line' }, ['state = {']),
      h('div', { class: 'line in' }, [h('span', { class: 'key', text: 'messages:' }), ' [', ...chips, ...gone, `] (${history.length})`]),
      h('div', { class: 'line in' }, [h('span', { class: 'key', text: 'turnCount:' }), ' ', h('b', { 'data-testid': 'turnCount', text: String(step.turnCount) }), ',']),
      h('div', { class: 'line in' }, [h('span', { class: 'key', text: 'transitionReason:' }), ' ', h('b', { 'data-testid': 'transitionReason', text: JSON.stringify(step.transitionReason) })]),
      h('div', { class: 'line' }, ['}']),
    ]),
    h('div', { class: 'feeds', 'data-testid': 'feeds' }, [h('span', { class: 'arrow', text: '└─ messages ─▶' }), ' ', h('span', { 'data-testid': 'request-delta', text: render(lang, feedsLine(t, i)) })]),
  );
}
