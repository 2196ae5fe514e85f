/**
 * What the viewer's page shows at its current step, read from the page in the browser (for the
 * lesson checker, ./lessonCheck.ts): the sentence, the reason, each line of the reply card and of the
 * tool card, the line under the state card, and what the loop's drawing lights.
 */
import type { Page } from 'playwright-core';
import type { ShownStep } from './lessonCheck.js';

export function pageShown(page: Page, view = 0): Promise<ShownStep> {
  return page.evaluate((index) => {
    const root = document.querySelector(`[data-view="${index}"]`) as HTMLElement;
    const q = (id: string) => root.querySelector<HTMLElement>(`[data-testid="${id}"]`);
    const spaced = (e: Element) => (e.children.length ? [...e.children].map((c) => (c.textContent ?? '').trim()).filter(Boolean).join(' ') : (e.textContent ?? '').trim());
    const visible = (e: HTMLElement | null) => !!e && !e.hidden;
    const replyCard = q('reply-card');
    const reply = visible(replyCard) ? [...(replyCard as HTMLElement).querySelectorAll(':scope > .kv, :scope > .status, :scope > .teaching')].map((e) => (e.classList.contains('teaching') ? (e.textContent ?? '').trim() : spaced(e))) : [];
    const toolCard = q('tool-card');
    const tools = visible(toolCard)
      ? [...(toolCard as HTMLElement).querySelectorAll<HTMLElement>('.tool-entry')].map((entry) => ({
          id: entry.dataset.tool ?? '',
          lines: [...entry.querySelectorAll(':scope > .status, :scope > .wrapped > span:first-child')].map((e) => (e.textContent ?? '').trim()),
        }))
      : [];
    const current = root.querySelector<SVGGElement>('.lesson-svg .lnode.current');
    const taken = root.querySelector<SVGGElement>('.lesson-svg .ledge.taken');
    const why = q('why');
    return {
      sentence: (q('sentence')?.textContent ?? '').trim(),
      why: visible(why) ? (why?.textContent ?? '').trim() || null : null,
      reply,
      tools,
      feeds: (q('feeds')?.textContent ?? '').replace(/^└─ messages ─▶\s*/, '').trim() || null,
      diagram: { node: current?.dataset.node ?? null, edge: taken?.dataset.edge ?? null, label: taken?.querySelector('text')?.textContent ?? null },
    };
  }, view);
}
