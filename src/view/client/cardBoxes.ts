/**
 * The registered cards (../cards/index.ts) in one timeline view: a box each, made with the view (before the messages
 * card, in the registry's order), and drawn at each step with the page's elements and language.
 */
import { NO_CONTEXT, type CardContext, type Kit } from '../cards/card.js';
import { CARDS } from '../cards/index.js';
import type { Timeline } from '../timeline/shape.js';
import { h } from './dom.js';
import { render, type Lang } from './lang.js';
import { resultContent } from './media.js';

export class CardBoxes {
  private readonly boxes: HTMLElement[];
  /** What the page knows beside the timeline: the calls that wait for an approval now (`view --restate`). */
  context: CardContext = NO_CONTEXT;

  /** One box a card, put before `before` (the messages card). */
  constructor(before: HTMLElement) {
    this.boxes = CARDS.map((card) => h('div', { class: `card ${card.name}-card${card.classes ? ` ${card.classes}` : ''}`, 'data-testid': `${card.name}-card`, 'data-card': card.name }));
    before.before(...this.boxes);
  }

  /** Each card at step `i`: drawn, or hidden where it has nothing to say. */
  draw(t: Timeline, i: number, lang: Lang): void {
    const kit: Kit<HTMLElement> = { lang, say: (line) => render(lang, line), h, content: resultContent };
    CARDS.forEach((card, k) => {
      const box = this.boxes[k] as HTMLElement;
      const facts = card.facts(t, i, this.context);
      box.hidden = facts === null;
      box.replaceChildren(...(facts === null ? [] : card.draw(facts, kit).filter((x): x is HTMLElement | string => !!x)));
    });
  }
}
