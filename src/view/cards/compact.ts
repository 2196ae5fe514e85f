/**
 * The compaction card (issue 42), on the `compacting` step that made a boundary: why, what stays in the loop's state
 * (the transcript keeps every message) against what is sent from the next step on (the summary and the exchanges
 * kept), the tokens before and after, and the summary the model wrote.
 */
import type { P } from '../texts/params.js';
import type { TimelineBoundary } from '../timeline/shape.js';
import { defineCard, drawItem, phrasebook, type CardItem } from './card.js';

const { texts, line } = phrasebook(
  {
    'card.compact.title': () => 'Compaction boundary',
    'card.compact.why': (p: P) => (p.trigger === 'prompt_too_long' ? 'the API refused the request as too long: the same turn is sent again, compacted' : p.trigger === 'manual' ? 'asked for by /compact' : 'the next request would have passed the threshold of the context window'),
    'card.compact.kept': (p: P) => `kept in state (the transcript): all ${p.before} messages, unchanged`,
    'card.compact.sent': (p: P) => `sent from the next step on: ${p.sent} messages (${p.kind === 'summary' ? `a summary of ${p.summarized}, then ${p.kept} kept whole` : 'old tool results cleared'})`,
    'card.compact.tokens': (p: P) => `tokens of the request: ~${p.before} before, ~${p.after} after`,
  },
  {
    'card.compact.title': () => '压缩边界',
    'card.compact.why': (p: P) => (p.trigger === 'prompt_too_long' ? 'API 以过长拒绝了请求：压缩后重发同一轮' : p.trigger === 'manual' ? '由 /compact 要求' : '下一个请求会超过上下文窗口的阈值'),
    'card.compact.kept': (p: P) => `保存在 state（记录文件）中：全部 ${p.before} 条消息，原样不变`,
    'card.compact.sent': (p: P) => `从下一步起发送：${p.sent} 条消息（${p.kind === 'summary' ? `${p.summarized} 条的摘要，再加完整保留的 ${p.kept} 条` : '清除了旧的工具结果'}）`,
    'card.compact.tokens': (p: P) => `请求的 token：之前约 ${p.before}，之后约 ${p.after}`,
  },
);

const count = (n: number) => n.toLocaleString('en-US');

const items = (b: TimelineBoundary): CardItem[] => [
  { line: line('card.compact.why', { trigger: b.trigger }), testid: 'compact-why' },
  { line: line('card.compact.kept', { before: b.messagesBefore }), testid: 'compact-kept' },
  { line: line('card.compact.sent', { sent: b.sent, kind: b.kind, summarized: b.summarized, kept: b.kept }), testid: 'compact-sent' },
  { line: line('card.compact.tokens', { before: count(b.tokensBefore), after: count(b.tokensAfter) }), testid: 'compact-tokens' },
];

export const compactCard = defineCard<TimelineBoundary>({
  name: 'compact',
  texts,
  facts: (t, i) => t.boundaries?.find((x) => x.step === i) ?? null,
  lines: (b) => [{ items: items(b) }],
  draw: (b, kit) => [
    kit.h('h2', { text: kit.say(line('card.compact.title')) }),
    ...items(b).map((it) => drawItem(kit, it)),
    b.summary ? kit.h('pre', { class: 'summary', 'data-testid': 'compact-summary', text: b.summary }) : null,
  ],
});
