/**
 * What the page shows at each step, as English text, from the page's own line builders (the registered cards,
 * src/view/cards/, the drawing's marks, the timeline's lines), for the checker (./lessonCheck.ts) to read without a
 * browser.
 */
import { CARDS } from '../../src/view/cards/index.js';
import { itemText, NO_CONTEXT, type CardContext } from '../../src/view/cards/card.js';
import { diagramMarks } from '../../src/view/lesson/diagramMarks.js';
import { paragraph, render } from '../../src/view/texts/render.js';
import type { Timeline } from '../../src/view/timeline/build.js';
import type { ShownCard, ShownStep } from './lessonCheck.js';

const say = (line: Parameters<typeof render>[1]) => render('en', line);

/** Each registered card's lines at step `i` (none for a card hidden there), by the card's name. */
export function shownCards(t: Timeline, i: number, context: CardContext = NO_CONTEXT): Record<string, ShownCard[]> {
  const out: Record<string, ShownCard[]> = {};
  for (const card of CARDS) {
    const facts = card.facts(t, i, context);
    if (facts === null) continue;
    out[card.name] = card.lines(facts).map((g) => ({ ...(g.group !== undefined ? { group: g.group } : {}), lines: g.items.map((it) => itemText(it, say)) }));
  }
  return out;
}

export function shownSteps(t: Timeline, context: CardContext = NO_CONTEXT): ShownStep[] {
  return t.steps.map((step, i) => {
    const marks = diagramMarks(t, i);
    return {
      sentence: paragraph('en', step.say),
      why: step.why ? render('en', step.why) : null,
      cards: shownCards(t, i, context),
      diagram: { node: marks.node, edge: marks.edge, label: marks.label ? render('en', marks.label) : null },
    };
  });
}

/** The tool card's calls at a step as shown: each tool_use id and its lines. */
export const shownTools = (s: ShownStep) => (s.cards.tool ?? []).map((g) => ({ id: g.group ?? '', lines: g.lines }));
