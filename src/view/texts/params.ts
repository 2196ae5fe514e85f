/**
 * The values a text of the catalogues is made from, and the languages: the ground of view/texts/, which the catalogues
 * (en.ts, zh.ts and their cards) and line.ts import, so that none of them imports another's values in a circle.
 */

/** A line inside a line's values: a key of the catalogue and its values (line.ts `Line`, whose key is a TextKey). */
export interface AnyLine {
  key: string;
  params: Params;
}

export type Param = string | number | boolean | null | undefined | AnyLine | AnyLine[];
export type Params = Readonly<Record<string, Param>>;
/** A text's values as it reads them (any of them may be absent). */
export type P = Params & Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const LANGS = ['en', 'zh'] as const;
export type Lang = (typeof LANGS)[number];

/** A text of a catalogue: a whole sentence or phrase, from its values. */
export type Text = (p: Params, lang: Lang) => string;
