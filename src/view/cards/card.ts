/**
 * What a viewer card is: one file of view/cards/ holds a card whole, and index.ts registers it.
 * - its facts at a step, from the timeline (null: the card is hidden at that step);
 * - its lines, as data (a key of its own texts and the values it names): the page draws them and
 *   test/support/lessonCheck.ts checks each against the transcript's records;
 * - its sentences, in every language of the lesson (en, zh: the same keys);
 * - its drawing: elements made through the `Kit` the page gives (client/view.ts), so the file needs no DOM and a
 *   test can draw it without a browser.
 * No card imports the catalogues (texts/render.ts): they import the registry, which lists the cards' texts.
 */
import type { ToolResultBlockParam } from '../../core/messages.js';
import type { AnyLine, Lang, Params, Text } from '../texts/params.js';
import type { Timeline } from '../timeline/shape.js';

/** One line of a card: a name and a value as recorded (data, never translated), and what it means (a line). */
export interface CardItem {
  name?: string;
  value?: string;
  line: AnyLine | null;
  testid?: string;
  /** `err`: a mistake shows here; `why`: one of the chapter's reasons. */
  tone?: 'err' | 'why';
  /** Read before the rest: a lead-in, then code as written (the reply card's "The chapter's check `if …`"). */
  lead?: AnyLine;
  code?: string;
}

/** The lines of a card, in groups (the tool card: one group a call, named by its tool_use id). */
export interface CardGroup {
  group?: string;
  items: CardItem[];
}

/** What the page knows beside the timeline: the calls a durable run waits on for an approval (`view --restate`). */
export interface CardContext {
  waiting: ReadonlySet<string>;
}

export const NO_CONTEXT: CardContext = { waiting: new Set() };

export type Child<N> = N | string | null | undefined | false;

/** What a card draws with: elements (the page's, or a test's), its lines in the page's language, a tool's result. */
export interface Kit<N> {
  lang: Lang;
  say(line: AnyLine): string;
  h(tag: string, attrs?: Record<string, string>, children?: Array<Child<N>>): N;
  /** A tool_result's content: text as text, images drawn (client/media.ts). */
  content(content: ToolResultBlockParam['content']): N[];
}

export interface Card<F> {
  /** Its box in the page: `data-testid="NAME-card"`, class `card NAME-card` and `classes`. */
  name: string;
  classes?: string;
  texts: Record<Lang, Record<string, Text>>;
  facts(t: Timeline, i: number, context: CardContext): F | null;
  lines(facts: F): CardGroup[];
  /** The box's children. A line's element carries `data-line` (test/support/pageShown.ts reads those). */
  draw<N>(facts: F, kit: Kit<N>): Array<Child<N>>;
}

export const defineCard = <F>(card: Card<F>): Card<F> => card;

/** A card's own sentences, the same keys in each language, and the lines made of them. */
export function phrasebook<K extends string>(en: Record<K, Text>, zh: Record<K, Text>) {
  return { texts: { en, zh } as Record<Lang, Record<string, Text>>, line: (key: K, params: Params = {}): AnyLine => ({ key, params }) };
}

/** A line as it is read: its name, its value, what it means (each when there). */
export const itemText = (item: CardItem, say: (line: AnyLine) => string): string =>
  [item.lead ? say(item.lead) : undefined, item.code, item.name, item.value, item.line ? say(item.line) : undefined].filter((x) => x !== undefined && x !== '').join(' ');

/** One card line: the name and value as recorded, what it means in the page's language. */
export function drawItem<N>(kit: Kit<N>, it: CardItem): N {
  const note = it.line ? kit.say(it.line) : '';
  const tone = it.tone ? ` ${it.tone}` : '';
  const testid: Record<string, string> = it.testid ? { 'data-testid': it.testid } : {};
  if (it.name === undefined) return kit.h('div', { class: `status${tone}`, 'data-line': '', ...testid, text: note });
  return kit.h('div', { class: `kv${tone}`, 'data-line': '' }, [
    kit.h('span', { class: 'k', text: it.name }),
    kit.h('b', { class: 'v', text: it.value ?? '', ...testid }),
    note ? kit.h('span', { class: 'note', text: note }) : null,
  ]);
}
