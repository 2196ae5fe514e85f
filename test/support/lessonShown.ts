/**
 * What the page shows at each step, as English text, from the page's own line builders (the same
 * functions the page draws with: src/view/cardLines.ts, diagramMarks.ts, the timeline's lines), for
 * the checker (./lessonCheck.ts) to read without a browser.
 */
import { feedsLine, replyCard, toolEntry, turnStarts } from '../../src/view/cardLines.js';
import { diagramMarks } from '../../src/view/diagramMarks.js';
import { paragraph, render, tr } from '../../src/view/texts/line.js';
import type { Timeline } from '../../src/view/timeline/build.js';
import type { ShownStep } from './lessonCheck.js';

const itemText = (it: { name?: string; value?: string; line: Parameters<typeof render>[1] | null }) =>
  [it.name, it.value, it.line ? render('en', it.line) : undefined].filter((x) => x !== undefined && x !== '').join(' ');

export function shownSteps(t: Timeline): ShownStep[] {
  return t.steps.map((step, i) => {
    const card = replyCard(step);
    const reply = card
      ? [
          ...card.items.map(itemText),
          `${tr('en', 'card.teaching.lead')} if response.stop_reason != "tool_use": return ${tr('en', 'card.teaching.would', card.teaching)}`,
        ]
      : [];
    const marks = diagramMarks(t, i);
    return {
      sentence: paragraph('en', step.say),
      why: step.why ? render('en', step.why) : null,
      reply,
      tools: turnStarts(t, i).map((s) => ({ id: s.id, lines: toolEntry(t, s, i).items.map(itemText) })),
      feeds: render('en', feedsLine(t, i)),
      diagram: { node: marks.node, edge: marks.edge, label: marks.label ? render('en', marks.label) : null },
    };
  });
}
