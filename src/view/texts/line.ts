/**
 * A line the lesson shows, as data: the key of its text in the catalogues and the values it names (ids, commands,
 * counts, indices, and lines inside it). The page renders it in the reader's language (render.ts); the checker
 * (test/support/lessonCheck.ts) reads the English. No text is glued from pieces: each key is a whole sentence or a
 * whole phrase in every catalogue (en.ts, zh.ts, and each card's own: view/cards/).
 */
import type { en } from './en.js';
import type { Params } from './params.js';

export { LANGS, type AnyLine, type Lang, type Param, type Params, type Text } from './params.js';

/** A key of the lesson's own catalogue (a card's keys are its own: view/cards/card.ts `phrasebook`). */
export type TextKey = keyof typeof en;

export interface Line {
  key: TextKey;
  params: Params;
}

export const line = (key: TextKey, params: Params = {}): Line => ({ key, params });
