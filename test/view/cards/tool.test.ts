/**
 * The tool card of a call that waits for an approval (a durable run parked on Restate, `view --restate`): it says so,
 * and who lists the call (`agentloop approvals`), in English and Chinese, instead of "running"; the lesson checker
 * reads that line against the records (no result, no denial, the run not over), and finds it false where the records
 * show the call answered.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { NO_CONTEXT } from '../../../src/view/cards/card.js';
import { toolCard } from '../../../src/view/cards/tool.js';
import { render } from '../../../src/view/texts/render.js';
import { readOrder } from '../../../src/view/timeline/read.js';
import { cardSamples, type CardSample } from '../../support/cardSamples.js';
import { checkShown } from '../../support/lessonCheck.js';
import { shownSteps, shownTools } from '../../support/lessonShown.js';

let waiting: CardSample;
let demo: CardSample;
beforeAll(async () => {
  const samples = await cardSamples();
  waiting = samples.find((s) => s.label === 'waiting for approval') as CardSample;
  demo = samples.find((s) => s.label === 'preset demo') as CardSample;
});

/** The status line of each call on the card at step `i` (default the last), in `lang`. */
function statusAtEnd(s: CardSample, context = s.context, lang: 'en' | 'zh' = 'en', i = s.timeline.steps.length - 1): string[] {
  const entries = toolCard.facts(s.timeline, i, context) ?? [];
  return entries.map((e) => e.items.find((it) => it.testid === 'tool-status')?.line).map((l) => (l ? render(lang, l) : ''));
}

const check = (s: CardSample, shown = shownSteps(s.timeline, s.context)) => {
  const run = { order: readOrder(s.records as never, []), ranges: s.timeline.steps.map((step) => step.records) };
  return shown.flatMap((step, i) => checkShown(step, run, i, s.label));
};

describe('the tool card of a call that waits for an approval', () => {
  it('says it waits and names `agentloop approvals`, in both languages', () => {
    expect(statusAtEnd(waiting)).toEqual([expect.stringMatching(/^⏸ waiting for approval: .*`agentloop approvals` lists it/)]);
    expect(statusAtEnd(waiting, waiting.context, 'zh')).toEqual([expect.stringMatching(/^⏸ 等待批准：.*`agentloop approvals`/)]);
  });

  it('says "running" when the page knows of no wait (a local run), as before', () => {
    expect(statusAtEnd(waiting, NO_CONTEXT)).toEqual(['… running: no result yet at this step']);
  });

  it('is checked against the records: true while no result is on record', () => {
    expect(shownSteps(waiting.timeline, waiting.context).some((s) => shownTools(s).some((t) => t.lines.some((l) => l.startsWith('⏸'))))).toBe(true);
    expect(check(waiting)).toEqual([]);
  });

  it('never says it where the call has returned, and the checker finds the line false there', () => {
    const id = demo.timeline.tools.find((t) => t.kind === 'start')?.id as string;
    const asked = { ...demo, context: { waiting: new Set([id]) } };
    const returned = demo.timeline.tools.find((t) => t.kind === 'result')?.step as number;
    expect(statusAtEnd(asked, asked.context, 'en', returned)).toEqual([expect.stringMatching(/^✓ returned/)]);
    const shown = shownSteps(asked.timeline, asked.context);
    const forged = shown.map((s) => ({ ...s, cards: { ...s.cards, ...(s.cards.tool ? { tool: s.cards.tool.map((g) => ({ ...g, lines: g.lines.map((l) => (l.startsWith('✓ returned') ? '⏸ waiting for approval: x (`agentloop approvals` lists it)' : l)) })) } : {}) } }));
    expect(check(asked, shown)).toEqual([]);
    expect(check(asked, forged).join('\n')).toMatch(/tool card toolu_demo_01: not what the records show: ⏸ waiting for approval/);
  });
});
