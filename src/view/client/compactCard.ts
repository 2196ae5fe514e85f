/**
 * The compaction card (issue 42), on the `compacting` step that made a boundary: why, what stays in the loop's state
 * (the transcript keeps every message) against what is sent from the next step on (the summary and the exchanges
 * kept), the tokens before and after, and the summary the model wrote.
 */
import type { Timeline } from '../timeline/build.js';
import { h } from './dom.js';
import { tr, type Lang } from './lang.js';

export function renderCompaction(box: HTMLElement, t: Timeline, i: number, lang: Lang): void {
  const b = t.boundaries?.find((x) => x.step === i);
  box.hidden = !b;
  if (!b) return;
  const count = (n: number) => n.toLocaleString('en-US');
  const row = (text: string, testid: string) => h('div', { class: 'status', 'data-testid': testid, text });
  box.replaceChildren(
    h('h2', { text: tr(lang, 'card.compact.title') }),
    row(tr(lang, 'card.compact.why', { trigger: b.trigger }), 'compact-why'),
    row(tr(lang, 'card.compact.kept', { before: b.messagesBefore }), 'compact-kept'),
    row(tr(lang, 'card.compact.sent', { sent: b.sent, kind: b.kind, summarized: b.summarized, kept: b.kept }), 'compact-sent'),
    row(tr(lang, 'card.compact.tokens', { before: count(b.tokensBefore), after: count(b.tokensAfter) }), 'compact-tokens'),
    ...(b.summary ? [h('pre', { class: 'summary', 'data-testid': 'compact-summary', text: b.summary })] : []),
  );
}
