/**
 * The reply card (④), on a reply step: stop_reason as received, the tool_use blocks counted (each call as its
 * contract shows it), needsFollowUp, what the chapter's check on stop_reason would do and whether the blocks agree,
 * and where the loop went.
 */
import type { TimelineStep } from '../timeline/shape.js';
import type { AnyLine, P } from '../texts/params.js';
import { defineCard, drawItem, phrasebook, type CardItem } from './card.js';

const { texts, line } = phrasebook(
  {
    'card.reply.title': (p: P) => `The reply (turn ${p.turn})`,
    'card.reply.stopReason': () => 'as received from the API',
    'card.reply.uses': (p: P) => `${p.list}`,
    'card.reply.usesFromStarts': (p: P) => `${p.list} (the reply is not in messages: counted from the tools that started)`,
    'card.reply.flag': () => 'set when a tool_use block arrives in the stream (how Claude Code decides to go on)',
    'card.reply.goesOn': () => 'the loop went on: it runs the tools',
    'card.reply.stops': () => 'the loop stopped here',
    'card.reply.continues': () => 'the loop asks the model to go on (a production path)',
    'card.teaching.lead': () => 'The chapter’s check',
    'card.teaching.would': (p: P) => `would ${p.runs ? 'go on and run the tools' : 'stop here'}: ${p.agrees ? 'the same as the tool_use blocks say' : '⚠ not what the tool_use blocks say'}`,
  },
  {
    'card.reply.title': (p: P) => `回复（第 ${p.turn} 轮）`,
    'card.reply.stopReason': () => 'API 返回的原样',
    'card.reply.uses': (p: P) => `${p.list}`,
    'card.reply.usesFromStarts': (p: P) => `${p.list}（回复不在 messages 里：按开始运行的工具计数）`,
    'card.reply.flag': () => '流式响应中一到 tool_use 块就置为 true（Claude Code 靠它决定是否继续）',
    'card.reply.goesOn': () => '循环继续：去执行工具',
    'card.reply.stops': () => '循环在这里停下',
    'card.reply.continues': () => '循环请模型接着写（生产路径）',
    'card.teaching.lead': () => '章节里的判断',
    'card.teaching.would': (p: P) => `会${p.runs ? '继续去执行工具' : '在这里停下'}：${p.agrees ? '与 tool_use 块一致' : '⚠ 与 tool_use 块不一致'}`,
  },
);

/** The chapter's check, as its code reads. */
export const TEACHING_CODE = 'if response.stop_reason != "tool_use": return';

interface ReplyCard {
  marks: string;
  turn: number;
  items: CardItem[];
  /** The chapter's check (`if response.stop_reason != "tool_use": return`): what it would do, and whether the blocks agree. */
  teaching: { runs: boolean; agrees: boolean };
}

function facts(step: TimelineStep): ReplyCard | null {
  const r = step.reply;
  if (!r) return null;
  const n = r.toolUses.length;
  const runs = r.teaching === 'tools';
  const list = r.toolUses.map((u) => u.call).join('; ');
  const branch = r.target === 'executingTools' ? line('card.reply.goesOn') : r.target === 'done' ? line('card.reply.stops') : r.target ? line('card.reply.continues') : null;
  return {
    marks: step.lesson.marks,
    turn: step.turnCount,
    teaching: { runs, agrees: runs === n > 0 },
    items: [
      { name: 'stop_reason', value: JSON.stringify(r.stopReason), line: line('card.reply.stopReason'), testid: 'stop-reason' },
      { name: 'tool_use', value: String(n), line: n ? line(r.toolUsesFrom === 'tool_start' ? 'card.reply.usesFromStarts' : 'card.reply.uses', { list }) : null, testid: 'tool-uses' },
      { name: 'needsFollowUp', value: r.needsFollowUp === null ? '—' : String(r.needsFollowUp), line: line('card.reply.flag'), testid: 'needs-follow-up' },
      { line: { key: 'why.streamingCard', params: {} }, tone: 'why' },
      ...(branch ? [{ line: branch, testid: 'branch' }] : []),
    ],
  };
}

/** The teaching check as one line: the lead, the chapter's code, what it would do. */
const teachingItem = (c: ReplyCard): CardItem => ({ lead: line('card.teaching.lead'), code: TEACHING_CODE, line: line('card.teaching.would', c.teaching), testid: 'teaching' });

/** The card's lines in the order shown: stop_reason, the tool_use blocks, the teaching check, then the rest. */
const itemsOf = (c: ReplyCard): CardItem[] => [...c.items.slice(0, 2), teachingItem(c), ...c.items.slice(2)];

export const replyCard = defineCard<ReplyCard>({
  name: 'reply',
  texts,
  facts: (t, i) => facts(t.steps[i] as TimelineStep),
  lines: (c) => [{ items: itemsOf(c) }],
  draw: (c, kit) => [
    kit.h('h2', {}, [kit.h('span', { class: 'mark', text: c.marks }), kit.say(line('card.reply.title', { turn: c.turn }))]),
    ...itemsOf(c).map((it) =>
      it.code === undefined
        ? drawItem(kit, it)
        : kit.h('div', { class: `teaching ${c.teaching.agrees ? 'agrees' : 'disagrees'}`, 'data-testid': 'teaching', 'data-line': '' }, [
            kit.h('b', { text: kit.say(it.lead as AnyLine) }),
            kit.h('code', { text: it.code }),
            kit.h('span', { text: kit.say(it.line as AnyLine) }),
          ]),
    ),
  ],
});
