/**
 * Claude Code's bound on what one MCP tool call gives the model: `MAX_MCP_OUTPUT_TOKENS` (a positive integer; else
 * 25,000 tokens). A result estimated over it is cut as Claude Code 2.1.197 cuts one (recorded: test/tools/mcp/
 * claudeMcpOutput.json): its blocks are kept in order within 4 characters a token (an image counts as 1600 tokens,
 * 6400 characters), the text block that crosses the bound is cut there and nothing after it is kept, and a last text
 * block says the output was truncated, in Claude Code's words. The estimate is Claude Code's own rough one (a token
 * per 4 characters, 1600 an image); Claude Code asks the API's token counter once that estimate passes half the
 * bound, agentloop does not spend a request on it. Holds for every transport (stdio, http, sse, in-process servers):
 * every call's result passes here (./tools.ts outputOf).
 *
 * Claude Code 2.1.197 saves a text-only result over the bound to a file in its session folder and gives the model the
 * path; agentloop cuts it as Claude Code cuts one with images (or with `ENABLE_MCP_LARGE_OUTPUT_FILES=0`): a durable
 * worker's or a library host's file is not one the model can be sure to read (docs/mcp.md).
 */
import type { ToolOutput, ToolResultContent } from '../../core/tool.js';
import { toolResultText } from '../../core/messages.js';

/** Claude Code's default bound, in tokens. */
export const DEFAULT_MAX_MCP_OUTPUT_TOKENS = 25_000;
/** What Claude Code counts an image as, in tokens. */
const IMAGE_TOKENS = 1600;
const CHARS_PER_TOKEN = 4;

/** The bound in tokens: `MAX_MCP_OUTPUT_TOKENS` as Claude Code reads it (parseInt; not a positive number: the default). */
export function maxMcpOutputTokens(env: Readonly<Record<string, string | undefined>>): number {
  const value = Number.parseInt(env.MAX_MCP_OUTPUT_TOKENS ?? '', 10);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_MAX_MCP_OUTPUT_TOKENS;
}

/** The text Claude Code adds after a cut result, word for word. */
export function truncationNotice(limit: number): string {
  return `\n\n[OUTPUT TRUNCATED - exceeded ${limit} token limit]\n\nThe tool output was truncated. If this MCP server provides pagination or filtering tools, use them to retrieve specific portions of the data. If pagination is not available, inform the user that you are working with truncated output and results may be incomplete.`;
}

/** Claude Code's rough estimate: a token per 4 characters of text (rounded), 1600 an image, nothing for the rest. */
export function estimatedTokens(output: ToolOutput): number {
  if (!output.blocks) return Math.round(output.content.length / CHARS_PER_TOKEN);
  return output.blocks.reduce((sum, b) => sum + (b.type === 'text' ? Math.round(b.text.length / CHARS_PER_TOKEN) : b.type === 'image' ? IMAGE_TOKENS : 0), 0);
}

/**
 * `output` as the model gets it: unchanged within `limit` tokens, else cut to it and said so, as blocks (the kept text
 * and the notice are two text blocks, as in Claude Code's request).
 */
export function capMcpOutput(output: ToolOutput, limit: number): ToolOutput {
  if (estimatedTokens(output) <= limit) return output;
  const blocks = [...keptBlocks(output.blocks ?? [{ type: 'text', text: output.content }], limit * CHARS_PER_TOKEN), { type: 'text' as const, text: truncationNotice(limit) }];
  return { ...output, content: toolResultText(blocks), blocks };
}

/** The blocks within `chars` characters, as Claude Code keeps them: in order, the crossing text cut, then nothing more. */
function keptBlocks(blocks: readonly ToolResultContent[], chars: number): ToolResultContent[] {
  const kept: ToolResultContent[] = [];
  let used = 0;
  for (const block of blocks) {
    if (block.type === 'text') {
      const left = chars - used;
      if (left <= 0) break;
      if (block.text.length <= left) {
        kept.push(block);
        used += block.text.length;
        continue;
      }
      kept.push({ type: 'text', text: cutUnits(block.text, left) });
      break;
    }
    if (block.type === 'image') {
      // Claude Code shrinks an image that does not fit into what is left; agentloop leaves it out.
      if (used + IMAGE_TOKENS * CHARS_PER_TOKEN > chars) continue;
      kept.push(block);
      used += IMAGE_TOKENS * CHARS_PER_TOKEN;
      continue;
    }
    kept.push(block);
  }
  return kept;
}

/** A block's first `units` UTF-16 units, as Claude Code cuts a block (but never half of a surrogate pair). */
function cutUnits(text: string, units: number): string {
  const cut = text.slice(0, units);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
