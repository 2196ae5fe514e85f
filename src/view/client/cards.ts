/**
 * The lesson's cards for one step: the reply (stop_reason as received, tool_use blocks counted,
 * needsFollowUp, what the teaching check would have done), the tools (the output wrapped into a
 * tool_result bound to its tool_use_id, and when each started), and the state the loop carries
 * ({messages, turnCount, transitionReason}) with the request body built from its messages.
 */
import { messagesAt, requestDelta, requestDeltaText, unansweredTool } from '../history.js';
import type { Timeline, TimelineStep, TimelineTool } from '../timeline.js';
import { h } from './dom.js';
import { resultContent } from './media.js';

const row = (name: string, value: string, note?: string, testid?: string) =>
  h('div', { class: 'kv' }, [h('span', { class: 'k', text: name }), h('b', { class: 'v', text: value, ...(testid ? { 'data-testid': testid } : {}) }), note ? h('span', { class: 'note', text: note }) : null]);

/** The reply card, on a reply step (else hidden). */
export function renderReply(box: HTMLElement, step: TimelineStep): void {
  const r = step.reply;
  box.hidden = !r;
  if (!r) return;
  const n = r.toolUses.length;
  const teachingRuns = r.teaching === 'tools';
  const agrees = teachingRuns === n > 0;
  box.replaceChildren(
    h('h2', {}, [h('span', { class: 'mark', text: step.lesson.marks }), `The reply (turn ${step.turnCount})`]),
    row('stop_reason', JSON.stringify(r.stopReason), 'as received from the API', 'stop-reason'),
    row('tool_use blocks', String(n), n ? r.toolUses.map((u) => `${u.name}: ${u.command}`).join('; ') + (r.toolUsesFrom === 'tool_start' ? ' (the reply is not in messages: counted from the tools that started)' : '') : '', 'tool-uses'),
    row('needsFollowUp', r.needsFollowUp === null ? '—' : String(r.needsFollowUp), 'set when a tool_use block arrives in the stream: what this loop checks', 'needs-follow-up'),
    h('div', { class: `teaching ${agrees ? 'agrees' : 'disagrees'}`, 'data-testid': 'teaching' }, [
      h('b', { text: 'The teaching check ' }),
      h('code', { text: 'if response.stop_reason != "tool_use": return' }),
      ` would ${teachingRuns ? 'go on and run the tools' : 'stop here'}: `,
      h('b', { text: agrees ? 'the same as needsFollowUp' : '⚠ not what the tool_use blocks say' }),
    ]),
    row('the loop took', r.guard ? `${r.guard === 'else' ? '[else]' : r.guard} → ${r.target}` : '—', undefined, 'branch'),
  );
}

const time = (at: string) => at.slice(11, 23);
const ms = (from: string, to: string) => `${Math.max(0, Date.parse(to) - Date.parse(from))} ms`;

/** The tools of this step's turn, as they stand at this step (hidden when the turn has none yet). */
export function renderTools(box: HTMLElement, t: Timeline, i: number): void {
  let from = i;
  while (from > 0 && t.steps[from]?.state !== 'callingModel') from -= 1;
  const starts = t.tools.filter((x) => x.kind === 'start' && x.step >= from && x.step <= i);
  const step = t.steps[i] as TimelineStep;
  box.hidden = starts.length === 0 || step.state === 'callingModel';
  if (box.hidden) return;
  box.replaceChildren(h('h2', {}, [h('span', { class: 'mark', text: '⑤' }), 'The tools: tool_use → tool_result']), ...starts.map((s) => toolEntry(t, s, i)));
}

function toolEntry(t: Timeline, start: TimelineTool, i: number): HTMLElement {
  const result = t.tools.find((x) => x.kind === 'result' && x.id === start.id && x.step <= i);
  const startStep = t.steps[start.step];
  const when = startStep?.state === 'callingModel' ? 'while the reply still streamed (read-only: it may start early)' : `at step ${start.step + 1}`;
  const command = (start.input as { command?: unknown } | undefined)?.command;
  const lines: Array<HTMLElement | null> = [
    h('div', { class: 'tool-head' }, [h('b', { text: start.name }), ' ', h('code', { text: typeof command === 'string' ? command : JSON.stringify(start.input) }), h('span', { class: 'chip', text: start.id })]),
    h('div', { class: 'status', text: `started ${time(start.at)}, ${when}` }),
  ];
  if (!result) lines.push(h('div', { class: 'status', 'data-testid': 'tool-status', text: unansweredTool(t, i, '… running: no result yet at this step') }));
  else {
    const bound = typeof result.result?.tool_use_id === 'string';
    lines.push(h('div', { class: 'status', 'data-testid': 'tool-status', text: `✓ returned ${time(result.at)} (${ms(start.at, result.at)} after it started), at step ${result.step + 1}` }));
    lines.push(h('div', { class: bound ? 'wrapped' : 'wrapped broken' }, [
      h('span', { text: bound ? `its output, wrapped into a tool_result bound to tool_use_id ${result.id}:` : '⚠ wrapped into a tool_result WITHOUT its tool_use_id:' }),
      ...wrapped(result.result),
    ]));
    lines.push(whereItWent(t, start.id, i));
  }
  return h('div', { class: 'tool-entry', 'data-tool': start.id }, lines);
}

/** The tool_result as written: its fields as JSON, then its content with text as text and images drawn. */
function wrapped(result: TimelineTool['result']): HTMLElement[] {
  const { content, ...fields } = result ?? ({} as NonNullable<TimelineTool['result']>);
  const shape = typeof content === 'string' ? 'text' : `${content?.length ?? 0} block${content?.length === 1 ? '' : 's'}`;
  return [h('pre', { class: 'json', text: JSON.stringify({ ...fields, content: `‹${shape}, below›` }, null, 1) }), h('div', { class: 'result-content', 'data-testid': 'tool-content' }, resultContent(content))];
}

/** Where a tool's result is in messages at step `i`: bound to its tool_use, written broken, or nowhere. */
function whereItWent(t: Timeline, id: string, i: number): HTMLElement {
  const history = messagesAt(t, i);
  const results = (m: (typeof history)[number]) => (typeof m.message.content === 'string' ? [] : m.message.content.filter((b) => b.type === 'tool_result'));
  const bound = history.find((m) => results(m).some((b) => b.type === 'tool_result' && b.tool_use_id === id));
  if (bound) return h('div', { class: 'status', 'data-testid': 'tool-where', text: `→ in messages[${bound.index}]: the model sees it in the next request` });
  const broken = history.find((m) => results(m).some((b) => typeof (b as { tool_use_id?: unknown }).tool_use_id !== 'string'));
  if (broken) return h('div', { class: 'status err', 'data-testid': 'tool-where', text: `⚠ the loop wrote it into messages[${broken.index}] without its tool_use_id` });
  const appended = t.steps.slice(0, i + 1).some((s) => s.state === 'appendingResults' && s.facts.unwritten.includes(id));
  return h('div', { class: appended ? 'status err' : 'status', 'data-testid': 'tool-where', text: appended ? '⚠ never written to messages: the model will not see it' : 'not in messages yet: the loop appends the results when every tool of the turn is done' });
}

/** `{messages, turnCount, transitionReason}` with messages feeding the request body. */
export function renderState(box: HTMLElement, t: Timeline, i: number): void {
  const step = t.steps[i] as TimelineStep;
  const history = messagesAt(t, i);
  const k = t.requests.findIndex((r) => r.step === i);
  const latest = [...t.requests].reverse().find((r) => r.step <= i);
  const chips = history.map((m) =>
    h('span', { class: `mchip ${m.message.role}${m.step === i ? ' new' : ''}${m.broken ? ' broken' : ''}`, title: `messages[${m.index}]`, text: `${m.index} ${m.message.role}${m.broken ? ' ⚠' : ''}` }),
  );
  const gone = t.messages.filter((m) => m.removedAt !== undefined && m.removedAt <= i).map((m) => h('span', { class: 'mchip deleted', text: `${m.index} deleted` }));
  const requestLine = k >= 0 ? requestSummary(t, k) : nextRequest(history.length, latest ? t.requests.indexOf(latest) + 1 : 0);
  box.replaceChildren(
    h('h2', {}, ['The loop’s state ', h('span', { class: 'badge', text: 'turnCount and transitionReason are never sent' })]),
    h('div', { class: 'state-code', 'data-testid': 'state-code' }, [
      h('div', { class: 'line' }, ['state = {']),
      h('div', { class: 'line in' }, [h('span', { class: 'key', text: 'messages:' }), ' [', ...chips, ...gone, `] (${history.length})`]),
      h('div', { class: 'line in' }, [h('span', { class: 'key', text: 'turnCount:' }), ' ', h('b', { 'data-testid': 'turnCount', text: String(step.turnCount) }), ',']),
      h('div', { class: 'line in' }, [h('span', { class: 'key', text: 'transitionReason:' }), ' ', h('b', { 'data-testid': 'transitionReason', text: JSON.stringify(step.transitionReason) })]),
      h('div', { class: 'line' }, ['}']),
    ]),
    requestLine,
  );
}

/** A request sent at this step: built from state.messages, and what it adds to the one before. */
function requestSummary(t: Timeline, k: number): HTMLElement {
  const req = t.requests[k] as Timeline['requests'][number];
  const readable = messagesAt(t, req.step, req.messageCount).length;
  const delta = k === 0 ? 'request 1: the first' : requestDeltaText({ number: k + 1, ...requestDelta(t, k) });
  return h('div', { class: 'feeds', 'data-testid': 'feeds' }, [
    h('span', { class: 'arrow', text: '└─ messages ─▶' }),
    ` request ${k + 1}, sent at this step: { model, max_tokens, system, tools, messages: ${readable} } · `,
    h('b', { 'data-testid': 'request-delta', text: delta }),
  ]);
}

/** No request at this step: the next one is built from the messages state holds now. */
function nextRequest(count: number, sent: number): HTMLElement {
  return h('div', { class: 'feeds', 'data-testid': 'feeds' }, [
    h('span', { class: 'arrow', text: '└─ messages ─▶' }),
    ` the next request’s body: { model, max_tokens, system, tools, messages: ${count} }`,
    sent ? ` (request ${sent} was the last sent)` : ' (none sent yet)',
  ]);
}
