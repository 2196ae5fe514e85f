/**
 * Blocks that carry base64 data (an MCP tool's image, a PDF) as the page shows them: an image drawn from a data: URL
 * (the viewer's CSP allows data: for img-src), its media type and size under it; any other such block named by its
 * type, media type and size. Never the base64 as text: JSON the page shows has each such data string replaced by a
 * note that says what it stood for (`withoutData`).
 */
import { base64Bytes, type ToolResultBlockParam } from '../../core/messages.js';
import { h } from './dom.js';

/** The image types the Messages API takes, the only ones drawn. */
const IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

interface Data {
  media: string;
  data: string;
}

/** The base64 data of a block's `source` (`{type: 'base64', media_type, data}`), if it has any. */
function dataOf(value: unknown): Data | undefined {
  const source = (value as { source?: { type?: unknown; media_type?: unknown; data?: unknown } } | null)?.source;
  if (source?.type !== 'base64' || typeof source.data !== 'string') return undefined;
  return { media: typeof source.media_type === 'string' ? source.media_type : 'unknown type', data: source.data };
}

const sizeOf = (d: Data) => `${d.media}, ${base64Bytes(d.data)} bytes`;

/** `value` with every base64 `source.data` replaced by a note naming its media type and size. */
export function withoutData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutData);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = withoutData(v);
  const d = dataOf(value);
  if (d) out.source = { ...(out.source as object), data: `‹base64 of ${sizeOf(d)}: drawn in the messages pane›` };
  return out;
}

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
