/**
 * The chapter's loop as a drawing: callingModel → (the reply) → executingTools → appendingResults →
 * callingModel, or done; each state with the chapter's steps ① to ⑧ (texts by key: texts/). The
 * production paths (retry, failure, interruption) are a layer the learner turns on. Pure data and an
 * SVG writer, so the page (client/lesson.ts), the README's picture (scripts/diagrams.ts) and a page
 * without a server draw the same loop. Text is at least 13 units in a 340-unit-wide drawing.
 */
import type { Lang, TextKey } from '../texts/line.js';
import { tr } from '../texts/render.js';

export interface LessonBox {
  id: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** The machine's state (data: the transcript names it so), or a text key for the prompt and the reply. */
  title: string | TextKey;
  tag: TextKey;
  shape?: 'pill' | 'choice';
  production?: boolean;
}

export interface LessonEdge {
  id: string;
  d: string;
  label: TextKey | null;
  lx: number;
  ly: number;
  production?: boolean;
  anchor?: 'start' | 'middle' | 'end';
  vertical?: boolean;
}

export const LESSON_BOXES: LessonBox[] = [
  { id: 'prompt', x: 84, y: 6, w: 120, h: 30, title: 'prompt', tag: 'diagram.prompt', shape: 'pill' },
  { id: 'callingModel', x: 44, y: 62, w: 200, h: 46, title: 'callingModel', tag: 'diagram.call' },
  { id: 'checkingReply', x: 54, y: 142, w: 180, h: 44, title: 'diagram.replyTitle', tag: 'diagram.reply', shape: 'choice' },
  { id: 'done', x: 262, y: 142, w: 74, h: 44, title: 'done', tag: 'diagram.done' },
  { id: 'executingTools', x: 44, y: 222, w: 200, h: 46, title: 'executingTools', tag: 'diagram.run' },
  { id: 'appendingResults', x: 44, y: 302, w: 200, h: 46, title: 'appendingResults', tag: 'diagram.append' },
  { id: 'waitingToRetry', x: 4, y: 396, w: 130, h: 44, title: 'waitingToRetry', tag: 'diagram.retry', production: true },
  { id: 'failed', x: 142, y: 396, w: 92, h: 44, title: 'failed', tag: 'diagram.failed', production: true },
  { id: 'aborted', x: 242, y: 396, w: 94, h: 44, title: 'aborted', tag: 'diagram.aborted', production: true },
];

export const LESSON_EDGES: LessonEdge[] = [
  { id: 'prompt>callingModel', d: 'M144 36 V60', label: null, lx: 0, ly: 0 },
  { id: 'callingModel>checkingReply', d: 'M144 108 V140', label: 'edge.reply', lx: 150, ly: 128, anchor: 'start' },
  { id: 'checkingReply>executingTools', d: 'M144 186 V220', label: 'edge.tools', lx: 150, ly: 207, anchor: 'start' },
  { id: 'checkingReply>done', d: 'M234 164 H260', label: 'edge.noTools', lx: 247, ly: 134 },
  { id: 'executingTools>appendingResults', d: 'M144 268 V300', label: 'edge.allIn', lx: 150, ly: 289, anchor: 'start' },
  { id: 'appendingResults>callingModel', d: 'M44 325 H18 V85 H42', label: 'edge.nextTurn', lx: 12, ly: 205, vertical: true },
  { id: 'callingModel>waitingToRetry', d: 'M244 96 H336 V378', label: 'edge.error', lx: 330, ly: 370, production: true, anchor: 'end' },
  { id: 'appendingResults>done', d: 'M244 325 H299 V188', label: 'edge.maxTurns', lx: 294, ly: 292, production: true, anchor: 'end' },
];

/** The box's title in `lang`: a state's name as it is, the others from the catalogue. */
export const boxTitle = (box: LessonBox, lang: Lang) => (box.title.includes('.') ? tr(lang, box.title as TextKey) : box.title);

const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The loop as a standalone SVG (the README's first picture): the chapter's loop, no production layer. */
export function lessonSvg(lang: Lang = 'en'): string {
  const text = (x: number, y: number, cls: string, body: string, extra = '') => `<text class="${cls}" x="${x}" y="${y}"${extra}>${esc(body)}</text>`;
  const parts: string[] = [];
  for (const e of LESSON_EDGES.filter((x) => !x.production)) {
    parts.push(`<path d="${e.d}" fill="none" stroke="#98a2b3" stroke-width="1.6" marker-end="url(#a)"/>`);
    if (e.label) parts.push(text(e.lx, e.ly, 'l', tr(lang, e.label), ` text-anchor="${e.anchor ?? 'middle'}"${e.vertical ? ` transform="rotate(-90 ${e.lx} ${e.ly})"` : ''}`));
  }
  for (const b of LESSON_BOXES.filter((x) => !x.production)) {
    const cx = b.x + b.w / 2;
    const k = 14;
    parts.push(
      b.shape === 'choice'
        ? `<polygon points="${b.x + k},${b.y} ${b.x + b.w - k},${b.y} ${b.x + b.w},${b.y + b.h / 2} ${b.x + b.w - k},${b.y + b.h} ${b.x + k},${b.y + b.h} ${b.x},${b.y + b.h / 2}" fill="#fffaeb" stroke="#dc6803"/>`
        : `<rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" rx="${b.shape === 'pill' ? b.h / 2 : 8}" fill="#fff" stroke="#667085"/>`,
    );
    if (b.shape === 'pill') parts.push(text(cx, b.y + b.h / 2 + 5, 't', `${tr(lang, b.tag)} ${boxTitle(b, lang)}`, ' text-anchor="middle"'));
    else parts.push(text(cx, b.y + 19, 't', boxTitle(b, lang), ' text-anchor="middle"'), text(cx, b.y + 36, 'g', tr(lang, b.tag), ' text-anchor="middle"'));
  }
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 340 354" width="680" height="708" role="img" aria-label="the agent loop of chapter s01">',
    '<style>.t{font:700 14px ui-monospace,Menlo,monospace;fill:#1d2430}.g,.l{font:13px system-ui,sans-serif;fill:#5d6675}</style>',
    '<defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="9" markerHeight="9" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#98a2b3"/></marker></defs>',
    '<rect width="340" height="354" fill="#fff"/>',
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
