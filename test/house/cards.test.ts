/**
 * A viewer card is one file of src/view/cards/, registered by its line in index.ts (docs/contributing.md "How to
 * add"). Every file there is a registered card; each has its sentences in every language of the lesson (the same keys,
 * each text whole), its facts, its lines and a drawing; on the sample runs (test/support/cardSamples.ts) it shows, every
 * line it says is a text of its own (or the lesson's) in both languages, and its drawing holds each of its lines, one
 * `data-line` element a line (what the page's checker reads). A card registered without its Chinese sentences or
 * without a drawing fails here, as the last test shows.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Card, Kit } from '../../src/view/cards/card.js';
import { CARDS } from '../../src/view/cards/index.js';
import { en } from '../../src/view/texts/en.js';
import { render } from '../../src/view/texts/render.js';
import { cardSamples, type CardSample } from '../support/cardSamples.js';

const DIR = fileURLToPath(new URL('../../src/view/cards/', import.meta.url));
const NOT_CARDS = new Set(['card.ts', 'index.ts']);

/** Values every text is rendered with: each of them data (ids, counts, states), as a record holds them. */
const VALUES = { turn: 2, list: '$ ls -A', runs: true, agrees: false, time: '07:01:02.003', step: 3, ms: 12, reason: 'not allowed', rule: 'Bash(rm:*)', state: 'done', id: 'toolu_x9', index: 4, number: 2, name: 'lister', count: 3, last: 1, delta: 'request 1: the first', trigger: 'manual', before: 9, after: 3, sent: 2, kind: 'summary', summarized: 5, kept: 1 };

/** A drawing as data: each element's tag, attributes and children. */
type Node = { tag: string; attrs: Record<string, string>; children: Array<Node | string> };
const KIT = (lang: 'en' | 'zh'): Kit<Node> => ({
  lang,
  say: (line) => render(lang, line),
  h: (tag, attrs = {}, children = []) => ({ tag, attrs, children: children.filter((c): c is Node | string => !!c) }),
  content: (content) => [{ tag: 'pre', attrs: { text: JSON.stringify(content) }, children: [] }],
});
const textOf = (n: Node | string): string => (typeof n === 'string' ? n : [n.attrs.text ?? '', ...n.children.map(textOf)].join(' '));
const lineCount = (n: Node | string): number => (typeof n === 'string' ? 0 : ('data-line' in n.attrs ? 1 : 0) + n.children.reduce((k, c) => k + lineCount(c), 0));

/** A line of `card` in `lang` from the card's own texts (its key when they have none); the lesson's own lines as the page renders them. */
function sayOwn(card: Card<unknown>, lang: 'en' | 'zh', line: { key: string; params: Readonly<Record<string, unknown>> }): string {
  if (!Object.hasOwn(card.texts.en, line.key)) return render(lang, line as never);
  const text = card.texts[lang]?.[line.key];
  if (!text) return line.key;
  const params = Object.fromEntries(Object.entries(line.params).map(([k, v]) => [k, v !== null && typeof v === 'object' && 'key' in v ? render(lang, v as never) : v]));
  return text(params as never, lang);
}

/** What is wrong with `card` as a registered card, on `samples`. */
export function cardProblems(card: Card<unknown>, samples: readonly CardSample[]): string[] {
  const out: string[] = [];
  const keys = (lang: 'en' | 'zh') => Object.keys(card.texts?.[lang] ?? {}).sort();
  if (!keys('en').length) out.push(`${card.name}: no sentences`);
  for (const key of keys('en')) if (!keys('zh').includes(key)) out.push(`${card.name}: no Chinese sentence for ${key}`);
  for (const key of keys('zh')) if (!keys('en').includes(key)) out.push(`${card.name}: no English sentence for ${key}`);
  for (const key of keys('en')) if (Object.hasOwn(en, key) || CARDS.some((other) => other.name !== card.name && Object.hasOwn(other.texts.en, key))) out.push(`${card.name}: ${key} is another's text`);
  for (const lang of ['en', 'zh'] as const) for (const [key, text] of Object.entries(card.texts?.[lang] ?? {})) if (/undefined|\[object/.test(text(VALUES, lang))) out.push(`${card.name}: ${key} in ${lang} is not whole`);
  if (typeof card.draw !== 'function') return [...out, `${card.name}: no drawing`];
  let shown = 0;
  for (const s of samples) {
    s.timeline.steps.forEach((_, i) => {
      const facts = card.facts(s.timeline, i, s.context);
      if (facts === null) return;
      shown += 1;
      const items = card.lines(facts).flatMap((g) => g.items);
      for (const lang of ['en', 'zh'] as const) {
        const drawn = { tag: 'div', attrs: {}, children: card.draw(facts, KIT(lang)).filter((c): c is Node | string => !!c) };
        const text = textOf(drawn);
        for (const it of items) {
          const said = it.line ? sayOwn(card, lang, it.line) : '';
          if (it.line && said === it.line.key) out.push(`${card.name}: ${it.line.key} has no text in ${lang}`);
          else if (!text.includes(said)) out.push(`${card.name}: ${s.label}, step ${i + 1}: the drawing in ${lang} lacks "${said}"`);
        }
        if (lineCount(drawn) !== items.length) out.push(`${card.name}: ${s.label}, step ${i + 1}: ${lineCount(drawn)} data-line elements for ${items.length} lines`);
      }
    });
  }
  if (!shown) out.push(`${card.name}: shown at no step of the samples (add a run that shows it to test/support/cardSamples.ts)`);
  return out;
}

describe('the viewer cards (src/view/cards/)', () => {
  let samples: CardSample[];
  beforeAll(async () => {
    samples = await cardSamples();
  });

  it('are each one file, registered in index.ts', async () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.ts') && !NOT_CARDS.has(f));
    for (const file of files) {
      const exported = Object.values(await import(`${DIR}${file}`)).filter((v) => typeof v === 'object' && v !== null && 'draw' in v && 'texts' in v);
      expect(exported, `${file} holds one card`).toHaveLength(1);
      expect(CARDS, `${file}'s card is registered in index.ts`).toContain(exported[0]);
    }
    expect(CARDS).toHaveLength(files.length);
    expect(new Set(CARDS.map((c) => c.name)).size).toBe(CARDS.length);
  });

  it('have their sentences in English and Chinese, their lines and a drawing that holds each line', () => {
    expect(CARDS.flatMap((card) => cardProblems(card, samples))).toEqual([]);
  });

  it('fail here when one is registered without a Chinese sentence or without a drawing', () => {
    const [card] = CARDS as [Card<unknown>];
    const { 'card.reply.stopReason': _gone, ...zh } = card.texts.zh;
    const noZh = { ...card, texts: { ...card.texts, zh } };
    expect(cardProblems(noZh, samples)).toContain(`${card.name}: no Chinese sentence for card.reply.stopReason`);
    expect(cardProblems(noZh, samples)).toContain(`${card.name}: card.reply.stopReason has no text in zh`);
    const noDrawing = { ...card, draw: undefined } as unknown as Card<unknown>;
    expect(cardProblems(noDrawing, samples)).toEqual([`${card.name}: no drawing`]);
    expect(cardProblems({ ...card, facts: () => null }, samples)).toEqual([`${card.name}: shown at no step of the samples (add a run that shows it to test/support/cardSamples.ts)`]);
  });
});

