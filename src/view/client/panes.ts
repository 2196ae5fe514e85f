/**
 * The messages pane and the request pane of one step. What a mistaken loop broke is drawn, not
 * hidden: a message written broken (a tool_result without its tool_use_id) is shown and marked;
 * a reply the loop never appended, results it never wrote and messages it deleted are drawn as
 * marked placeholders where they would be.
 */
import type { ContentBlock, MessageParam } from '../../core/messages.js';
import { deltaLine } from '../lesson/delta.js';
import { FINAL_STATES, messagesAt, requestBody, requestDelta } from '../timeline/history.js';
import type { Timeline, TimelineMessage, TimelineStep } from '../timeline/build.js';
import { h, highlightJson, hue } from './dom.js';
import { render, tr, type Lang } from './lang.js';
import { withoutData } from './base64Data.js';
import { mediaBlock, resultContent } from './media.js';

function blocks(message: MessageParam): ContentBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

function toolStatus(t: Timeline, id: string, index: number, answeredIn: Map<string, number>, lang: Lang): string {
  const where = answeredIn.get(id);
  if (where !== undefined) return tr(lang, 'block.answered', { index: where });
  const seen = t.tools.filter((x) => x.id === id && x.step <= index);
  const ended = FINAL_STATES.has(t.steps[index]?.state ?? '');
  if (seen.some((x) => x.kind === 'result')) return tr(lang, ended ? 'block.returnedNever' : 'block.returnedNotYet');
  if (seen.some((x) => x.kind === 'start')) return ended ? tr(lang, 'block.noResult', { state: t.steps[index]?.state }) : tr(lang, 'block.running');
  return tr(lang, 'block.notStarted');
}

function renderBlock(b: ContentBlock, t: Timeline, index: number, answeredIn: Map<string, number>, lang: Lang): HTMLElement {
  if (b.type === 'text') return h('div', { class: 'block text', text: b.text });
  if (b.type === 'tool_use') {
    return h('div', { class: 'block tool', style: `--chip: ${hue(b.id)}`, 'data-tool-use': b.id }, [
      h('div', {}, [h('b', { text: 'tool_use ' }), h('span', { class: 'chip', text: b.id }), ' ', h('b', { text: b.name })]),
      h('pre', { text: JSON.stringify(b.input, null, 2) }),
      h('div', { class: 'status', text: toolStatus(t, b.id, index, answeredIn, lang) }),
    ]);
  }
  if (b.type === 'tool_result') {
    const id = (b as { tool_use_id?: unknown }).tool_use_id;
    const bound = typeof id === 'string';
    return h('div', { class: `block tool${bound ? '' : ' unbound'}`, style: `--chip: ${bound ? hue(id) : '#b42318'}`, 'data-tool-result': bound ? id : '' }, [
      h('div', {}, [
        h('b', { text: `${tr(lang, 'block.resultFor')} ` }),
        bound ? h('span', { class: 'chip', text: id }) : h('span', { class: 'badge', 'data-testid': 'unbound', text: tr(lang, 'block.unbound') }),
        b.is_error ? h('span', { class: 'badge', text: 'is_error' }) : null,
      ]),
      ...resultContent(b.content),
    ]);
  }
  return h('div', { class: 'block' }, [h('b', { text: b.type }), mediaBlock(b) ?? h('pre', { text: JSON.stringify(withoutData(b), null, 2) })]);
}

function messageCard(m: TimelineMessage, t: Timeline, index: number, answeredIn: Map<string, number>, lang: Lang): HTMLElement {
  const fresh = m.step === index;
  const rewritten = fresh && t.steps[index]?.facts.rewritten.includes(m.index);
  return h('div', { class: `msg ${m.message.role}${fresh ? ' new' : ''}${m.broken ? ' broken' : ''}`, 'data-index': String(m.index) }, [
    h('div', { class: 'head' }, [
      h('span', { class: 'role', text: m.message.role }),
      h('span', { text: `messages[${m.index}]` }),
      m.synthetic ? h('span', { class: 'badge', text: tr(lang, 'msg.resume') }) : null,
      m.broken ? h('span', { class: 'badge', 'data-testid': 'broken', text: tr(lang, 'msg.broken') }) : null,
      fresh ? h('span', { class: 'badge info', 'data-testid': 'fresh', text: tr(lang, rewritten ? 'msg.changed' : 'msg.new') }) : null,
    ]),
    ...blocks(m.message).map((b) => renderBlock(b, t, index, answeredIn, lang)),
  ]);
}

/** A marked placeholder: something that should be in messages and is not. */
const ghost = (text: string, testid: string) => h('div', { class: 'msg ghost', 'data-testid': testid, text });

/** What the loop left out of or deleted from messages up to step `index`, with where it would stand. */
function ghostsUpTo(t: Timeline, index: number, lang: Lang): Array<{ at: number; node: HTMLElement }> {
  const out: Array<{ at: number; node: HTMLElement }> = [];
  t.steps.slice(0, index + 1).forEach((s: TimelineStep, j) => {
    const at = s.facts.history.length;
    if (s.reply && s.reply.index === null) {
      const uses = s.reply.toolUses.map((u) => u.call).join('; ');
      out.push({ at, node: ghost(tr(lang, 'msg.missingReply', { turn: s.turnCount, stopReason: String(s.reply.stopReason), uses, step: j + 1 }), 'missing-reply') });
    }
    if (s.state === 'appendingResults' && s.facts.unwritten.length) {
      out.push({ at, node: ghost(tr(lang, 'msg.missingResult', { ids: s.facts.unwritten.join(', '), step: j + 1 }), 'missing-result') });
    }
  });
  for (const m of t.messages) {
    if (m.removedAt !== undefined && m.removedAt <= index) {
      out.push({ at: m.index, node: ghost(tr(lang, 'msg.deleted', { index: m.index, role: m.message.role, step: m.removedAt + 1 }), 'deleted') });
    }
  }
  return out;
}

export function renderMessages(box: HTMLElement, t: Timeline, index: number, lang: Lang): number {
  const messages = messagesAt(t, index);
  const answeredIn = new Map<string, number>();
  for (const m of messages) for (const b of blocks(m.message)) if (b.type === 'tool_result') answeredIn.set(b.tool_use_id, m.index);
  const cards: Array<{ at: number; node: HTMLElement }> = messages.map((m) => ({ at: m.index, node: messageCard(m, t, index, answeredIn, lang) }));
  const all = [...cards, ...ghostsUpTo(t, index, lang)].sort((a, b) => a.at - b.at);
  box.replaceChildren(...all.map((c) => c.node));
  if (all.length === 0) box.append(h('div', { class: 'empty', text: tr(lang, 'msg.none') }));
  return messages.length;
}

const folded = (summary: string, value: unknown, testid?: string) => {
  const pre = h('pre', { class: 'json', ...(testid ? { 'data-testid': testid } : {}) });
  pre.innerHTML = highlightJson(value);
  return h('details', {}, [h('summary', { text: summary }), pre]);
};

/** The latest request at this step: messages first, what it adds to the one before; system and tools folded. Returns its header. */
export function renderRequest(box: HTMLElement, t: Timeline, index: number, lang: Lang): string {
  const k = t.requests.reduce((found, r, j) => (r.step <= index ? j : found), -1);
  const req = t.requests[k];
  box.replaceChildren();
  if (!req) {
    box.append(h('div', { class: 'empty', text: tr(lang, 'req.none') }));
    return '';
  }
  const body = requestBody(t, req);
  const { messages, system, tools, ...settings } = body as { messages: unknown[]; system?: unknown; tools?: Array<{ name: string }> };
  const list = h('pre', { class: 'json', 'data-testid': 'request-messages' });
  list.innerHTML = highlightJson(messages);
  const lost = req.messageCount - messages.length;
  box.append(
    h('div', { class: 'request' }, [
      h('div', { class: 'delta', text: k === 0 ? tr(lang, 'delta.first') : render(lang, deltaLine({ number: k + 1, ...requestDelta(t, k) })) }),
      lost > 0 ? h('div', { class: 'status err', text: tr(lang, 'req.lost', { count: req.messageCount, lost }) }) : null,
      h('div', { class: 'settings', text: Object.entries(settings).map(([key, v]) => `${key}: ${JSON.stringify(v)}`).join(' · ') }),
      h('h3', { text: tr(lang, 'req.messages', { count: messages.length }) }),
      list,
      system !== undefined ? folded(tr(lang, 'req.system', { chars: JSON.stringify(system).length }), system) : null,
      tools ? folded(tr(lang, 'req.tools', { count: tools.length, names: tools.map((x) => x.name).join(', ') }), tools) : null,
      folded(tr(lang, 'req.whole'), body, 'request'),
    ]),
  );
  return tr(lang, 'req.label', { number: k + 1, turn: req.turnCount, count: messages.length, here: req.step === index });
}
