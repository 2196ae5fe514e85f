/**
 * Claude Code's token cap on a Read (25,000 tokens, counted as characters / 4, / 2 for JSON): a whole-file read over
 * it is cut to a first page with a note saying how to read on; a read with offset or limit over it is an error.
 */
export const MAX_TOKENS = 25_000;

export function estimateTokens(content: string, extension: string): number {
  const perToken = ['json', 'jsonl', 'jsonc'].includes(extension) ? 2 : 4;
  return Math.round(content.length / perToken);
}

export function tooManyTokens(tokens: number): string {
  return `File content (${tokens} tokens) exceeds maximum allowed tokens (${MAX_TOKENS}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.`;
}

export interface FirstPage {
  content: string;
  lineCount: number;
  note: string;
}

/** The first page of `content` (`totalLines` lines, `tokens` estimated) that fits the cap, as Claude Code cuts it. */
export function firstPage(content: string, totalLines: number, tokens: number): FirstPage {
  const lines = content.split('\n');
  const perChar = Math.max(0.5, content.length / Math.max(1, tokens));
  const cost = (text: string) => text.length / perChar;
  let count = Math.max(1, Math.min(lines.length, Math.floor(((lines.length * MAX_TOKENS) / Math.max(1, tokens)) * 0.85)));
  let page = lines.slice(0, count).join('\n');
  for (let i = 0; i < 6 && cost(page) > MAX_TOKENS && count > 1; i++) {
    count = Math.max(1, Math.floor(count * 0.7));
    page = lines.slice(0, count).join('\n');
  }
  const head = `[Truncated: PARTIAL view \u2014 `;
  if (cost(page) <= MAX_TOKENS && page.trim() !== '') {
    const note =
      count < totalLines
        ? `${head}showing lines 1-${count} of ${totalLines} total (${tokens} tokens, cap ${MAX_TOKENS}). Call Read with offset=${count + 1} limit=${count} for the next page, or Grep to find a specific section. Do NOT answer from this page alone if the answer may be further in the file.]`
        : longLinesNote(head, page, content, tokens);
    return { content: page, lineCount: count, note };
  }
  let chars = Math.max(1, Math.floor(MAX_TOKENS * perChar * 0.85));
  page = content.slice(0, chars);
  for (let i = 0; i < 6 && cost(page) > MAX_TOKENS; i++) {
    chars = Math.max(1, Math.floor(chars * 0.7));
    page = content.slice(0, chars);
  }
  const last = page.charCodeAt(page.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) page = page.slice(0, -1);
  return { content: page, lineCount: page.split('\n').length, note: longLinesNote(head, page, content, tokens) };
}

function longLinesNote(head: string, page: string, content: string, tokens: number): string {
  return `${head}showing the first ${page.length} of ${content.length} characters (${tokens} tokens, cap ${MAX_TOKENS}); this file has very long lines and cannot be paginated by line. Use Grep to find a specific section, or Read with offset/limit to page through it. Do NOT answer from this excerpt alone if the answer may be elsewhere in the file.]`;
}
