/**
 * An MCP call result's content blocks as the Messages API takes them inside a tool_result: text as text; an image
 * (or a resource holding one) as an image block, a PDF resource as a document block, both base64, as Claude Code
 * passes them; what the API cannot take in a tool_result (audio, other binary resources, links) as a line naming it.
 * An image or PDF whose data is not what its type says (not base64, or not starting as a PNG, JPEG, GIF, WebP or PDF
 * does), or is over the API's 5 MB, is named and left out too: the API would refuse it, and the history would then
 * hold a result that makes every later request fail.
 */
import type { ToolResultContent } from '../../core/tool.js';

export type McpBlock = { type: string; [key: string]: unknown };

/** The API's bound on one image's (and one request's PDF's) base64 data. */
const MAX_BASE64 = 5 * 1024 * 1024;

/** How each type the API takes starts, as bytes. */
const MAGIC: Record<string, (bytes: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  'application/pdf': (b) => b.subarray(0, 5).toString('latin1') === '%PDF-',
};

/** The content of one MCP block for the tool_result; undefined: nothing (an empty text). */
export function resultBlock(block: McpBlock): ToolResultContent | undefined {
  switch (block.type) {
    case 'text':
      return textBlock(String(block.text ?? ''));
    case 'image':
      return media(String(block.mimeType), block.data, 'image');
    case 'audio':
      return textBlock(`[audio ${String(block.mimeType)}, ${base64Bytes(block.data)} bytes, not shown]`);
    case 'resource':
      return resourceBlock((block.resource ?? {}) as { uri?: string; text?: string; blob?: string; mimeType?: string });
    case 'resource_link':
      return textBlock(`[resource ${String(block.uri)}${block.name ? ` (${String(block.name)})` : ''}]`);
    default:
      return textBlock(`[${block.type} content, not shown]`);
  }
}

function resourceBlock(resource: { uri?: string; text?: string; blob?: string; mimeType?: string }): ToolResultContent | undefined {
  if (typeof resource.text === 'string') return textBlock(resource.text);
  const type = String(resource.mimeType ?? 'binary');
  if (MAGIC[type] && typeof resource.blob === 'string') return media(type, resource.blob, `resource ${String(resource.uri)}`);
  return textBlock(`[resource ${String(resource.uri)} (${type}), not shown]`);
}

/** An image or PDF block, or a line saying why it was left out. */
function media(mimeType: string, data: unknown, what: string): ToolResultContent {
  const why = unsendable(mimeType, data, what);
  if (why) return { type: 'text', text: `[${what} ${mimeType}, ${base64Bytes(data)} bytes, not shown: ${why}]` };
  if (mimeType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: data as string } };
  return { type: 'image', source: { type: 'base64', media_type: mimeType as 'image/png', data: data as string } };
}

function unsendable(mimeType: string, data: unknown, what: string): string | undefined {
  const starts = MAGIC[mimeType];
  if (!starts || (what === 'image' && !mimeType.startsWith('image/'))) return 'the API takes PNG, JPEG, GIF and WebP images and PDF documents';
  if (typeof data !== 'string' || data.length === 0 || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return 'its data is not base64';
  if (data.length > MAX_BASE64) return 'over the API’s 5 MB';
  return starts(Buffer.from(data.slice(0, 24), 'base64')) ? undefined : `its data is not ${mimeType}`;
}

function textBlock(text: string): ToolResultContent | undefined {
  return text === '' ? undefined : { type: 'text', text };
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  return Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
}
