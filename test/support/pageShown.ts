/**
 * What the viewer's page shows at its current step, read from the page in the browser (for the lesson checker,
 * ./lessonCheck.ts): the sentence, the reason, each line of each card drawn (an element with `data-line`, in its
 * group's `data-group` when it has one), and what the loop's drawing lights.
 */
import type { Page } from 'playwright-core';
import type { ShownStep } from './lessonCheck.js';

export function pageShown(page: Page, view = 0): Promise<ShownStep> {
  return page.evaluate((index) => {
    const root = document.querySelector(`[data-view="${index}"]`) as HTMLElement;
    const q = (id: string) => root.querySelector<HTMLElement>(`[data-testid="${id}"]`);
    // A line as read: its parts (name, value, what it means) apart, each trimmed.
    const text = (e: Element) => [...e.childNodes].map((c) => (c.textContent ?? '').trim()).filter(Boolean).join(' ');
    const visible = (e: HTMLElement | null) => !!e && !e.hidden;
    const cards: ShownStep['cards'] = {};
    for (const box of root.querySelectorAll<HTMLElement>('[data-card]')) {
      if (!visible(box)) continue;
      const groups = [...box.querySelectorAll<HTMLElement>('[data-group]')];
      const linesOf = (e: HTMLElement) => [...e.querySelectorAll('[data-line]')].filter((l) => l.closest('[data-group]') === (e.dataset.group === undefined ? null : e)).map(text);
      cards[box.dataset.card as string] = groups.length ? groups.map((g) => ({ group: g.dataset.group as string, lines: linesOf(g) })) : [{ lines: linesOf(box) }];
    }
    const current = root.querySelector<SVGGElement>('.lesson-svg .lnode.current');
    const taken = root.querySelector<SVGGElement>('.lesson-svg .ledge.taken');
    const why = q('why');
    return {
      sentence: (q('sentence')?.textContent ?? '').trim(),
      why: visible(why) ? (why?.textContent ?? '').trim() || null : null,
      cards,
      diagram: { node: current?.dataset.node ?? null, edge: taken?.dataset.edge ?? null, label: taken?.querySelector('text')?.textContent ?? null },
    };
  }, view);
}
