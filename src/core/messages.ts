/** The conversation's vocabulary: the Messages API's own types, as agentloop uses them. */
import type Anthropic from '@anthropic-ai/sdk';

export type MessageParam = Anthropic.MessageParam;
/** A block of a reply, in the shape it is sent back to the API in `messages`. */
export type ContentBlock = Anthropic.ContentBlockParam;
export type ToolUseBlock = Anthropic.ToolUseBlockParam;
export type ToolResultBlockParam = Anthropic.ToolResultBlockParam;
export type StopReason = Anthropic.StopReason;


/**
 * A tool_result's content as text, to show (the terminal, the viewer's diagram): its text blocks, and a line naming
 * each other block (`[image image/png, 1234 bytes]`), never its data.
 */
export function toolResultText(content: ToolResultBlockParam['content']): string {
  if (content === undefined || typeof content === 'string') return content ?? '';
  return content
    .map((block) => {
      if (block.type === 'text') return block.text;
      const source = (block as { source?: { media_type?: unknown; data?: unknown } }).source;
      const data = typeof source?.data === 'string' ? source.data : '';
      return `[${block.type}${typeof source?.media_type === 'string' ? ` ${source.media_type}` : ''}${data ? `, ${base64Bytes(data)} bytes` : ''}]`;
    })
    .join('\n');
}

/** How many bytes base64 text decodes to. */
export function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
}
