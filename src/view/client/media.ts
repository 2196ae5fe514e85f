/**
 * Blocks that carry base64 data (an MCP tool's image, a PDF) as the page shows them: an image drawn from a data: URL
 * (the viewer's CSP allows data: for img-src), its media type and size under it; any other such block named by its
 * type, media type and size. Never the base64 as text: JSON the page shows has each such data string replaced by a
 * note that says what it stood for (`withoutData`).
 */
import type { ToolResultBlockParam } from '../../core/messages.js';
import { dataOf, sizeOf, withoutData } from './base64Data.js';
import { h } from './dom.js';

/** The image types the Messages API takes, the only ones drawn. */
const IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A block with base64 data: an image drawn with its media type and size, anything else named; else undefined. */
export function mediaBlock(block: { type: string }): HTMLElement | undefined {
  const d = dataOf(block);
  if (!d) return undefined;
  const drawn = block.type === 'image' && IMAGES.has(d.media) && BASE64.test(d.data);
  const caption = h('figcaption', { 'data-testid': 'media-caption', text: `${block.type} ${sizeOf(d)}${drawn || block.type !== 'image' ? '' : ' (not drawn: not base64 of an image type the API takes)'}` });
  const img = drawn ? h('img', { src: `data:${d.media};base64,${d.data}`, alt: `${block.type} ${sizeOf(d)}` }) : null;
  return h('figure', { class: 'media', 'data-testid': 'media' }, [img, caption]);
}

/** A tool_result's content: its text blocks as text, its images drawn, anything else as JSON without its data. */
export function resultContent(content: ToolResultBlockParam['content']): HTMLElement[] {
  if (content === undefined || typeof content === 'string') return [h('pre', { text: content ?? '' })];
  return content.map((b) => {
    if (b.type === 'text') return h('pre', { text: b.text });
    return mediaBlock(b) ?? h('pre', { text: JSON.stringify(withoutData(b), null, 2) });
  });
}
