/**
 * The messages pane and the request pane of one step. What a mistaken loop broke is drawn, not
 * hidden: a message written broken (a tool_result without its tool_use_id) is shown and marked;
 * a reply the loop never appended, results it never wrote and messages it deleted are drawn as
 * marked placeholders where they would be.
 */
import type { ContentBlock, MessageParam } from '../../core/messages.js';
import { messagesAt, requestBody, requestDelta, requestDeltaText, unansweredTool } from '../history.js';
import type { Timeline, TimelineMessage, TimelineStep } from '../timeline.js';
import { h, highlightJson, hue } from './dom.js';
import { mediaBlock, resultContent, withoutData } from './media.js';

function blocks(message: MessageParam): ContentBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function toolStatus(t: Timeline, id: string, index: number, answeredIn: Map<string, number>): string {
  const where = answeredIn.get(id);
  if (where !== undefined) return `→ answered by the tool_result in messages[${where}]`;
  const seen = t.tools.filter((x) => x.id === id && x.step <= index);
  if (seen.some((x) => x.kind === 'result')) return '✓ returned: its result is not in messages (yet)';
  if (seen.some((x) => x.kind === 'start')) return unansweredTool(t, index, '… running');
  return 'not started yet';
}

function renderBlock(b: ContentBlock, t: Timeline, index: number, answeredIn: Map<string, number>): HTMLElement {
  if (b.type === 'text') return h('div', { class: 'block text', text: b.text });
  if (b.type === 'tool_use') {
    return h('div', { class: 'block tool', style: `--chip: ${hue(b.id)}`, 'data-tool-use': b.id }, [
      h('div', {}, [h('b', { text: 'tool_use ' }), h('span', { class: 'chip', text: b.id }), ' ', h('b', { text: b.name })]),
      h('pre', { text: JSON.stringify(b.input, null, 2) }),
      h('div', { class: 'status', text: toolStatus(t, b.id, index, answeredIn) }),
    ]);
  }
  if (b.type === 'tool_result') {
    const id = (b as { tool_use_id?: unknown }).tool_use_id;
    const bound = typeof id === 'string';
    return h('div', { class: `block tool${bound ? '' : ' unbound'}`, style: `--chip: ${bound ? hue(id) : '#b42318'}`, 'data-tool-result': bound ? id : '' }, [
      h('div', {}, [
        h('b', { text: 'tool_result for ' }),
        bound ? h('span', { class: 'chip', text: id }) : h('span', { class: 'badge', 'data-testid': 'unbound', text: '⚠ no tool_use_id: the API refuses it' }),
        b.is_error ? h('span', { class: 'badge', text: 'is_error' }) : null,
      ]),
      ...resultContent(b.content),
    ]);
  }
  return h('div', { class: 'block' }, [h('b', { text: b.type }), mediaBlock(b) ?? h('pre', { text: JSON.stringify(withoutData(b), null, 2) })]);
}

function messageCard(m: TimelineMessage, t: Timeline, index: number, answeredIn: Map<string, number>): HTMLElement {
  const fresh = m.step === index;
  const rewritten = fresh && t.steps[index]?.facts.rewritten.includes(m.index);
  return h('div', { class: `msg ${m.message.role}${fresh ? ' new' : ''}${m.broken ? ' broken' : ''}`, 'data-index': String(m.index) }, [
    h('div', { class: 'head' }, [
      h('span', { class: 'role', text: m.message.role }),
      h('span', { text: `messages[${m.index}]` }),
      m.synthetic ? h('span', { class: 'badge', text: 'added by resume' }) : null,
      m.broken ? h('span', { class: 'badge', 'data-testid': 'broken', text: '⚠ written broken (the transcript’s reader skips it)' }) : null,
      fresh ? h('span', { class: 'badge info', 'data-testid': 'fresh', text: rewritten ? 'changed at this step: written over the message already here' : 'new at this step' }) : null,
    ]),
    ...blocks(m.message).map((b) => renderBlock(b, t, index, answeredIn)),
  ]);
}

/** A marked placeholder: something that should be in messages and is not. */
const ghost = (text: string, testid: string) => h('div', { class: 'msg ghost', 'data-testid': testid, text });

/** What the loop left out of or deleted from messages up to step `index`, with where it would stand. */
function ghostsUpTo(t: Timeline, index: number): Array<{ at: number; node: HTMLElement }> {
  const out: Array<{ at: number; node: HTMLElement }> = [];
  t.steps.slice(0, index + 1).forEach((s: TimelineStep, j) => {
    const at = s.facts.history.length;
    if (s.reply && s.reply.index === null) {
      const uses = s.reply.toolUses.map((u) => `${u.name}: ${u.command}`).join('; ');
      out.push({ at, node: ghost(`⚠ missing: the reply of turn ${s.turnCount} (stop_reason ${s.reply.stopReason}${uses ? `, tool_use ${uses}` : ''}) was never appended to messages (step ${j + 1})`, 'missing-reply') });
    }
    if (s.state === 'appendingResults' && s.facts.unwritten.length) {
      out.push({ at, node: ghost(`⚠ missing: the tool_result for ${s.facts.unwritten.join(', ')} was never written to messages (step ${j + 1})`, 'missing-result') });
    }
  });
  for (const m of t.messages) {
    if (m.removedAt !== undefined && m.removedAt <= index) {
      out.push({ at: m.index, node: ghost(`✂ messages[${m.index}] (${m.message.role}) was deleted from messages at step ${m.removedAt + 1}: the model never sees it again`, 'deleted') });
    }
  }
  return out;
}

export function renderMessages(box: HTMLElement, t: Timeline, index: number): number {
  const messages = messagesAt(t, index);
  const answeredIn = new Map<string, number>();
  for (const m of messages) for (const b of blocks(m.message)) if (b.type === 'tool_result') answeredIn.set(b.tool_use_id, m.index);
  const cards: Array<{ at: number; node: HTMLElement }> = messages.map((m) => ({ at: m.index, node: messageCard(m, t, index, answeredIn) }));
  const all = [...cards, ...ghostsUpTo(t, index)].sort((a, b) => a.at - b.at);
  box.replaceChildren(...all.map((c) => c.node));
  if (all.length === 0) box.append(h('div', { class: 'empty', text: 'no messages yet' }));
  return messages.length;
}

const folded = (summary: string, value: unknown, testid?: string) => {
  const pre = h('pre', { class: 'json', ...(testid ? { 'data-testid': testid } : {}) });
  pre.innerHTML = highlightJson(value);
  return h('details', {}, [h('summary', { text: summary }), pre]);
};

/** The latest request at this step: messages first, what it adds to the one before; system and tools folded. Returns its header. */
export function renderRequest(box: HTMLElement, t: Timeline, index: number): string {
  const k = t.requests.reduce((found, r, j) => (r.step <= index ? j : found), -1);
  const req = t.requests[k];
  box.replaceChildren();
  if (!req) {
    box.append(h('div', { class: 'empty', text: 'no request sent yet' }));
    return '';
  }
  const body = requestBody(t, req);
  const { messages, system, tools, ...settings } = body as { messages: unknown[]; system?: unknown; tools?: Array<{ name: string }> };
  const list = h('pre', { class: 'json', 'data-testid': 'request-messages' });
  list.innerHTML = highlightJson(messages);
  const lost = req.messageCount - messages.length;
  box.append(
    h('div', { class: 'request' }, [
      h('div', { class: 'delta', text: k === 0 ? 'request 1: the first' : requestDeltaText({ number: k + 1, ...requestDelta(t, k) }) }),
      lost > 0 ? h('div', { class: 'status err', text: `it carried ${req.messageCount} messages: ${lost} of them could not be read from the transcript` }) : null,
      h('div', { class: 'settings', text: Object.entries(settings).map(([key, v]) => `${key}: ${JSON.stringify(v)}`).join(' · ') }),
      h('h3', { text: `messages (${messages.length})` }),
      list,
      system !== undefined ? folded(`system (${JSON.stringify(system).length} characters)`, system) : null,
      tools ? folded(`tools (${tools.length}: ${tools.map((x) => x.name).join(', ')})`, tools) : null,
      folded('the whole body, as sent', body, 'request'),
    ]),
  );
  return `request ${k + 1} · turn ${req.turnCount} · ${messages.length} message${messages.length === 1 ? '' : 's'}${req.step === index ? ' · sent at this step' : ''}`;
}
