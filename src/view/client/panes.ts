/** The messages pane and the request pane of one step. */
import type { ContentBlock, MessageParam } from '../../core/messages.js';
import type { Timeline, TimelineMessage, TimelineRequest, TimelineStep } from '../timeline.js';
import { h, highlightJson, hue } from './dom.js';

/** The history as it was at step `index` (only the first `limit` messages when given). */
export function messagesAt(t: Timeline, index: number, limit?: number): TimelineMessage[] {
  const out: TimelineMessage[] = [];
  // A message deleted from the history (a truncation after it was written) is not shown.
  const cut = (m: TimelineMessage) => (t.truncations ?? []).some((c) => c.step <= index && m.step < c.step && m.index >= c.length);
  for (const m of t.messages) if (m.step <= index && (limit === undefined || m.index < limit) && !cut(m)) out[m.index] = m;
  const gap = out.findIndex((m) => m === undefined);
  return gap < 0 ? out : out.slice(0, gap);
}

function blocks(message: MessageParam): ContentBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function renderBlock(b: ContentBlock, answeredIn: Map<string, number>, tools: Map<string, Set<string>>): HTMLElement {
  if (b.type === 'text') return h('div', { class: 'block text', text: b.text });
  if (b.type === 'tool_use') {
    const seen = tools.get(b.id);
    const where = answeredIn.get(b.id);
    const status =
      where !== undefined
        ? `→ answered by the tool_result in messages[${where}]`
        : seen?.has('result')
          ? '✓ finished; its result is appended when every tool of the turn is done'
          : seen?.has('start')
            ? '… running'
            : 'not started yet';
    return h('div', { class: 'block tool', style: `--chip: ${hue(b.id)}`, 'data-tool-use': b.id }, [
      h('div', {}, [h('b', { text: 'tool_use ' }), h('span', { class: 'chip', text: b.id }), ' ', h('b', { text: b.name })]),
      h('pre', { text: JSON.stringify(b.input, null, 2) }),
      h('div', { class: 'status', text: status }),
    ]);
  }
  if (b.type === 'tool_result') {
    const content = typeof b.content === 'string' ? b.content : JSON.stringify(b.content, null, 2);
    return h('div', { class: 'block tool', style: `--chip: ${hue(b.tool_use_id)}`, 'data-tool-result': b.tool_use_id }, [
      h('div', {}, [
        h('b', { text: 'tool_result for ' }),
        h('span', { class: 'chip', text: b.tool_use_id }),
        b.is_error ? h('span', { class: 'badge', text: 'is_error', style: 'margin-left:6px' }) : null,
      ]),
      h('pre', { text: content ?? '' }),
    ]);
  }
  return h('div', { class: 'block' }, [h('b', { text: b.type }), h('pre', { text: JSON.stringify(b, null, 2) })]);
}

export function renderMessages(box: HTMLElement, t: Timeline, index: number): number {
  const messages = messagesAt(t, index);
  box.replaceChildren();
  if (messages.length === 0) box.append(h('div', { class: 'empty', text: 'no messages yet' }));
  const answeredIn = new Map<string, number>();
  for (const m of messages) for (const b of blocks(m.message)) if (b.type === 'tool_result') answeredIn.set(b.tool_use_id, m.index);
  const tools = new Map<string, Set<string>>();
  for (const tool of t.tools) if (tool.step <= index) tools.set(tool.id, (tools.get(tool.id) ?? new Set()).add(tool.kind));
  for (const m of messages) {
    const fresh = m.step === index;
    box.append(
      h('div', { class: `msg ${m.message.role}${fresh ? ' new' : ''}`, 'data-index': String(m.index) }, [
        h('div', { class: 'head' }, [
          h('span', { class: 'role', text: m.message.role }),
          h('span', { text: `messages[${m.index}]` }),
          m.synthetic ? h('span', { class: 'badge', text: 'added by resume' }) : null,
          fresh ? h('span', { class: 'badge info', text: 'new at this step' }) : null,
        ]),
        ...blocks(m.message).map((b) => renderBlock(b, answeredIn, tools)),
      ]),
    );
  }
  box.querySelector('.msg.new')?.scrollIntoView({ block: 'nearest' });
  return messages.length;
}

/** The request of a step: its body as sent (messages from the history, cache marks put back). */
export function requestBody(t: Timeline, req: TimelineRequest): Record<string, unknown> {
  const messages = messagesAt(t, req.step, req.messageCount).map((m) => structuredClone(m.message));
  for (const [mi, bi] of req.messageCacheMarks) {
    const content = messages[mi]?.content;
    const block = typeof content === 'string' ? undefined : content?.[bi];
    if (block) Object.assign(block, { cache_control: { type: 'ephemeral' } });
  }
  return { ...req.body, messages };
}

const folded = (summary: string, value: unknown, testid?: string) => {
  const pre = h('pre', { class: 'json', ...(testid ? { 'data-testid': testid } : {}) });
  pre.innerHTML = highlightJson(value);
  return h('details', {}, [h('summary', { text: summary }), pre]);
};

/** Messages first; system prompt and tools folded; the loop's own fields beside, never sent. */
export function renderRequest(box: HTMLElement, t: Timeline, step: TimelineStep, index: number): string {
  const req = [...t.requests].reverse().find((r) => r.step <= index);
  box.replaceChildren();
  if (req) {
    const body = requestBody(t, req);
    const { messages, system, tools, ...settings } = body as { messages: unknown[]; system?: unknown; tools?: Array<{ name: string }> };
    const list = h('pre', { class: 'json', 'data-testid': 'request-messages' });
    list.innerHTML = highlightJson(messages);
    box.append(
      h('div', { class: 'request' }, [
        h('div', { class: 'settings', text: Object.entries(settings).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(' · ') }),
        h('h3', { text: `messages (${messages.length})` }),
        list,
        system !== undefined ? folded(`system (${JSON.stringify(system).length} characters)`, system) : null,
        tools ? folded(`tools (${tools.length}: ${tools.map((x) => x.name).join(', ')})`, tools) : null,
        folded('the whole body, as sent', body, 'request'),
      ]),
    );
  } else box.append(h('div', { class: 'empty', text: 'no request sent yet' }));
  const fields: Record<string, unknown> = { state: step.state, turnCount: step.turnCount, transitionReason: step.transitionReason, event: step.event };
  if (step.exitReason) fields.exitReason = step.exitReason;
  box.append(
    h('div', { class: 'unsent never-sent', 'data-testid': 'unsent' }, [
      h('div', {}, [h('b', { text: '⊘ never sent: the loop’s own fields ' }), h('span', { class: 'badge', text: 'not in the body' })]),
      h('div', { text: JSON.stringify(fields) }),
    ]),
  );
  return req ? `turn ${req.turnCount} · ${req.messageCount} message${req.messageCount === 1 ? '' : 's'}${req.step === index ? ' · sent at this step' : ''}` : '';
}
