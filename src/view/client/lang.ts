/**
 * The page's language: `?lang=` (the CLI's `--lang`), else the one the reader chose before (kept in this
 * browser), else the first of the browser's languages (navigator.languages) the lesson has, else English.
 * The switch in the header flips it; every text with `data-t` is filled from the catalogue (../texts/).
 */
import { LANGS, type Lang, type Line, type TextKey } from '../texts/line.js';
import { paragraph, pickLang, render, tr } from '../texts/render.js';

export { paragraph, render, tr, type Lang, type Line };

const KEY = 'agentloop.lang';

export function initialLang(given?: string): Lang {
  const asked = new URLSearchParams(location.search).get('lang') ?? given;
  if (asked && (LANGS as readonly string[]).includes(asked)) return asked as Lang;
  let kept: string | null = null;
  try {
    kept = localStorage.getItem(KEY);
  } catch {
    // storage may be off
  }
  if (kept && (LANGS as readonly string[]).includes(kept)) return kept as Lang;
  return pickLang(navigator.languages?.length ? navigator.languages : [navigator.language]);
}

export function keepLang(lang: Lang): void {
  try {
    localStorage.setItem(KEY, lang);
  } catch {
    // storage may be off
  }
}

/** Fills every `[data-t]` under `root` with its text in `lang`, and the page's `lang` attribute. */
export function applyStatic(root: ParentNode, lang: Lang): void {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  for (const node of root.querySelectorAll<HTMLElement>('[data-t]')) node.textContent = tr(lang, node.dataset.t as TextKey);
}
