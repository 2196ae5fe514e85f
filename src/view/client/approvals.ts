/**
 * `agentloop view --restate`: the card of the durable run's calls that wait for an approval (../approvals.ts), above
 * the timeline: the call's display line and tool, since when (and how long), why it is asked, the deadline, and the
 * two commands that answer it; once answered, how (approved: it ran; denied: what the model was told). Redrawn each
 * time the server sends the list, and every second for the time waited.
 */
import type { WaitingCallView } from '../server/approvals.js';
import { h } from './dom.js';
import { tr, type Lang } from './lang.js';

/** `42 s`, `3 min 5 s`, `2 h 4 min`: how long since `iso`. */
function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

const clock = (iso: string) => new Date(iso).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

function waitingLines(call: WaitingCallView, lang: Lang, now: number): HTMLElement[] {
  return [
    h('p', { 'data-testid': 'approval-since', title: call.since, text: tr(lang, 'approvals.since', { since: clock(call.since), ago: ago(call.since, now) }) }),
    h('p', { class: 'why', 'data-testid': 'approval-reason', text: tr(lang, 'approvals.reason', { reason: call.reason }) }),
    call.deadline ? h('p', { 'data-testid': 'approval-deadline', title: call.deadline, text: tr(lang, 'approvals.deadline', { deadline: clock(call.deadline) }) }) : null,
    h('p', { text: tr(lang, 'approvals.answer', {}) }),
    h('pre', { class: 'command', 'data-testid': 'approval-approve', text: call.approve }),
    h('pre', { class: 'command', 'data-testid': 'approval-deny', text: call.deny }),
  ].filter((line): line is HTMLElement => line !== null);
}

function answerLine(call: WaitingCallView, lang: Lang): HTMLElement {
  const key = call.state === 'approved' ? 'approvals.approved' : call.state === 'denied' ? 'approvals.denied' : 'approvals.answered';
  return h('p', { class: `status ${call.state === 'denied' ? 'err' : 'why'}`, 'data-testid': 'approval-answer', text: tr(lang, key, { message: call.message ?? '' }) });
}

function callCard(call: WaitingCallView, lang: Lang, now: number): HTMLElement {
  const head = h('p', { class: 'approval-head' }, [h('code', { 'data-testid': 'approval-call', text: call.call }), ' ', h('span', { class: 'sub', text: `${call.tool} · ${call.toolUseId}` })]);
  const body = call.state === 'waiting' ? waitingLines(call, lang, now) : [answerLine(call, lang)];
  return h('div', { class: `approval ${call.state}`, 'data-testid': 'approval', 'data-state': call.state, 'data-tool-use-id': call.toolUseId }, [head, ...body]);
}

/** Draws the calls into `box` (hidden while no call has waited). */
export function renderApprovals(box: HTMLElement, calls: readonly WaitingCallView[], lang: Lang, now = Date.now()): void {
  box.hidden = calls.length === 0;
  const waiting = calls.filter((call) => call.state === 'waiting').length;
  const badge = h('span', { class: `badge${waiting ? '' : ' info'}`, 'data-testid': 'approvals-count', text: tr(lang, 'approvals.count', { count: waiting }) });
  box.replaceChildren(h('h2', {}, [tr(lang, 'approvals.title', {}), ' ', badge]), ...calls.map((call) => callCard(call, lang, now)));
}
