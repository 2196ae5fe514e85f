/**
 * A line the lesson shows, as data: the key of its text in the catalogue of each language and the
 * values it names (ids, commands, counts, indices, and lines inside it). The page renders it in the
 * reader's language; the checker (test/support/lessonCheck.ts) reads the English. No text is glued
 * from pieces: each key is a whole sentence or a whole phrase in every catalogue (en.ts, zh.ts).
 */
import { en } from './en.js';
import { LANGS, type Lang, type Param, type Params, type Text } from './params.js';
import { zh } from './zh.js';

export { LANGS, type Lang, type Param, type Params, type Text } from './params.js';

export type TextKey = keyof typeof en;

export interface Line {
  key: TextKey;
  params: Params;
}

export type Catalogue = Record<TextKey, Text>;

const CATALOGUES: Record<Lang, Catalogue> = { en, zh };

export const line = (key: TextKey, params: Params = {}): Line => ({ key, params });

/**
 * Whether `value` is a Line of the catalogue. A value taken from a transcript is any JSON (a damaged record's `[[]]` or
 * `{}` where a command was expected): only a Line is rendered as one, anything else is shown as its JSON.
 */
function isLine(value: unknown): value is Line {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { key, params } = value as { key?: unknown; params?: unknown };
  return typeof key === 'string' && Object.hasOwn(en, key) && params !== null && typeof params === 'object';
}

function shownValue(lang: Lang, value: unknown): Param {
  if (isLine(value)) return render(lang, value);
  if (Array.isArray(value)) return value.map((x) => (isLine(x) ? render(lang, x) : String(shownValue(lang, x)))).join(lang === 'zh' ? '' : ' ');
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : (value as Param);
}

/** The line in `lang`: its values as text, lines inside it rendered first. */
export function render(lang: Lang, l: Line): string {
  const params: Record<string, Param> = {};
  for (const [k, v] of Object.entries(l.params)) params[k] = shownValue(lang, v);
  return CATALOGUES[lang][l.key](params, lang);
}

/** `render` with the key and its values given apart. */
export const tr = (lang: Lang, key: TextKey, params: Params = {}) => render(lang, line(key, params));

/** Several sentences as one paragraph. */
export const paragraph = (lang: Lang, lines: readonly Line[]) => lines.map((l) => render(lang, l)).join(lang === 'zh' ? '' : ' ');

/** The language of the page: the first of the reader's languages (navigator.languages) the lesson has, else English. */
export function pickLang(wanted: readonly string[]): Lang {
  for (const tag of wanted) {
    const base = tag.toLowerCase().split('-')[0];
    if ((LANGS as readonly string[]).includes(base ?? '')) return base as Lang;
  }
  return 'en';
}
