/**
 * Base64 data in a block (an MCP tool's image, a PDF), apart from the DOM: what it is (`dataOf`, `sizeOf`), and JSON
 * with each such data string replaced by a note that says what it stood for (`withoutData`). media.ts draws such
 * blocks; dom.ts's JSON never shows the base64 as text.
 */
import { base64Bytes } from '../../core/messages.js';

export interface Data {
  media: string;
  data: string;
}

/** The base64 data of a block's `source` (`{type: 'base64', media_type, data}`), if it has any. */
export function dataOf(value: unknown): Data | undefined {
  const source = (value as { source?: { type?: unknown; media_type?: unknown; data?: unknown } } | null)?.source;
  if (source?.type !== 'base64' || typeof source.data !== 'string') return undefined;
  return { media: typeof source.media_type === 'string' ? source.media_type : 'unknown type', data: source.data };
}

export const sizeOf = (d: Data) => `${d.media}, ${base64Bytes(d.data)} bytes`;

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
