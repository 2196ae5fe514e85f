/**
 * A line in the reader's language: the catalogues (en.ts, zh.ts) with every registered card's sentences
 * (view/cards/index.ts), and how a line's values are shown.
 */
import { CARDS } from '../cards/index.js';
import { en } from './en.js';
import { LANGS, type AnyLine, type Lang, type Param, type Params, type Text } from './params.js';
import { zh } from './zh.js';

const catalogue = (lang: Lang, own: Record<string, Text>): Record<string, Text> => Object.assign({}, own, ...CARDS.map((card) => card.texts[lang]));

const CATALOGUES: Record<Lang, Record<string, Text>> = { en: catalogue('en', en), zh: catalogue('zh', zh) };

/** Whether the catalogues have a text of `key` (the lesson's own, or a registered card's). */
export const hasText = (key: string): boolean => Object.hasOwn(CATALOGUES.en, key);

/**
 * Whether `value` is a line of the catalogues. A value taken from a transcript is any JSON (a damaged record's `[[]]`
 * or `{}` where a command was expected): only a line is rendered as one, anything else is shown as its JSON.
 */
function isLine(value: unknown): value is AnyLine {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { key, params } = value as { key?: unknown; params?: unknown };
  return typeof key === 'string' && hasText(key) && params !== null && typeof params === 'object';
}

function shownValue(lang: Lang, value: unknown): Param {
  if (isLine(value)) return render(lang, value);
  if (Array.isArray(value)) return value.map((x) => (isLine(x) ? render(lang, x) : String(shownValue(lang, x)))).join(lang === 'zh' ? '' : ' ');
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : (value as Param);
}

/** The line in `lang`: its values as text, lines inside it rendered first. A key no catalogue has is shown as it is. */
export function render(lang: Lang, l: AnyLine): string {
  const text = CATALOGUES[lang][l.key];
  if (!text) return l.key;
  const params: Record<string, Param> = {};
  for (const [k, v] of Object.entries(l.params)) params[k] = shownValue(lang, v);
  return text(params, lang);
}

/** `render` with the key and its values given apart. */
export const tr = (lang: Lang, key: keyof typeof en, params: Params = {}) => render(lang, { key, params });

/** Several sentences as one paragraph. */
export const paragraph = (lang: Lang, lines: readonly AnyLine[]) => lines.map((l) => render(lang, l)).join(lang === 'zh' ? '' : ' ');

/** The language of the page: the first of the reader's languages (navigator.languages) the lesson has, else English. */
export function pickLang(wanted: readonly string[]): Lang {
  for (const tag of wanted) {
    const base = tag.toLowerCase().split('-')[0];
    if ((LANGS as readonly string[]).includes(base ?? '')) return base as Lang;
  }
  return 'en';
}
