/**
 * The files a compaction re-reads and attaches after the summary, pure: which, in what order, within what limits, and
 * the text of each. Claude Code 2.1.197's rules (recorded in test/history/claudeCompactFiles.json; its compaction code
 * read in the binary: at most 5 files, 5,000 tokens a file, 50,000 in all): the files the conversation read whole
 * with Read, the latest first; not those read in a part kept after the boundary (their content is there); not one
 * read only in part (offset/limit); each read again now, so a changed file is attached as it is now and a deleted one
 * not at all. run/compactFiles.ts reads them through the run's own Read tool.
 */
import type { MessageParam } from '../core/messages.js';
import { jsonTokens } from './tokens.js';

/** How many files, the tokens of one file's content, the tokens of all the attachments (Claude Code's). */
export const RESTORE_MAX_FILES = 5;
export const RESTORE_FILE_TOKENS = 5_000;
export const RESTORE_BUDGET_TOKENS = 50_000;
/** agentloop's: at most a quarter of the window (Claude Code's 50,000 of 200,000), so a small window is not filled at once. */
export const RESTORE_WINDOW_SHARE = 0.25;

/** The attachments' budget in a window of `window` tokens. */
export function restoreBudget(window: number): number {
  return Math.min(RESTORE_BUDGET_TOKENS, Math.floor(RESTORE_WINDOW_SHARE * window));
}

const READ = 'Read';
const CALLED = 'Called the Read tool with the following input: ';
const RESULT = '\nResult of calling the Read tool:\n';
/** Read's answers that carry no content: the same read of a file unchanged (Claude Code's two wordings). */
const STUBS = ['Wasted call \u2014 file unchanged', 'File unchanged since last read'];

/** One attachment's text, as Claude Code writes it (input as JSON, then the Read tool's result: numbered lines). */
export function readAttachment(path: string, result: string): string {
  return `${CALLED}${JSON.stringify({ file_path: path })}${RESULT}${result}`;
}

/** What stands for a file too large to attach (Claude Code's words): after the attached files. */
export function tooLargeNote(path: string): string {
  return `Note: ${path} was read before the last conversation was summarized, but the contents are too large to include. Use Read tool if you need to access it.`;
}

/** `path` made absolute from `cwd`, `.` and `..` resolved (POSIX; no node:path: the viewer's simulator bundles this). */
export function absolutePath(path: string, cwd: string): string {
  const parts: string[] = [];
  for (const part of (path.startsWith('/') ? path : `${cwd}/${path}`).split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** A read that gave content: the path as the model gave it, its result text. */
interface ContentRead {
  path: string;
  text: string;
}

const textOfResult = (content: unknown): string | undefined => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.filter((b): b is { type: 'text'; text: string } => b?.type === 'text');
  return texts.length === content.length ? texts.map((b) => b.text).join('\n') : undefined;
};

/** A Read input that reads the whole file (no offset past the first line, no limit), or undefined. */
function wholeReadPath(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const { file_path: path, offset, limit, pages } = input as Record<string, unknown>;
  if (typeof path !== 'string' || path === '' || limit !== undefined || pages !== undefined) return undefined;
  return offset === undefined || offset === 1 ? path : undefined;
}

/** The attachments an earlier compaction put in a message (listed latest first), oldest first. */
function attachedReads(message: MessageParam): ContentRead[] {
  if (message.role !== 'user' || typeof message.content === 'string') return [];
  const found: ContentRead[] = [];
  for (const block of message.content) {
    if (block.type !== 'text' || !block.text.startsWith(CALLED)) continue;
    const at = block.text.indexOf(RESULT);
    try {
      const input = JSON.parse(block.text.slice(CALLED.length, at)) as { file_path?: unknown };
      if (at > 0 && typeof input.file_path === 'string') found.unshift({ path: input.file_path, text: block.text.slice(at + RESULT.length) });
    } catch {
      // not one of ours
    }
  }
  return found;
}

/** The whole-file Reads of `messages` that gave content (not an error, not the unchanged stub), in order. */
export function contentReads(messages: readonly MessageParam[]): ContentRead[] {
  const asked = new Map<string, string>();
  const reads: ContentRead[] = [];
  for (const message of messages) {
    reads.push(...attachedReads(message));
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use' && block.name === READ) {
        const path = wholeReadPath(block.input);
        if (path !== undefined) asked.set(block.id, path);
      }
      if (block.type !== 'tool_result' || block.is_error === true) continue;
      const path = asked.get(block.tool_use_id);
      const text = textOfResult(block.content);
      if (path === undefined || text === undefined || STUBS.some((s) => text.startsWith(s))) continue;
      reads.push({ path, text });
    }
  }
  return reads;
}

/**
 * The files to re-read after a compaction that summarized `summarized` and keeps `tail`: the latest read first, at
 * most RESTORE_MAX_FILES, none whose content a Read in the tail carries. `key` makes two spellings of a path one.
 */
export function filesToRestore(summarized: readonly MessageParam[], tail: readonly MessageParam[], key: (path: string) => string = (p) => p): string[] {
  const inTail = new Set(contentReads(tail).map((r) => key(r.path)));
  const picked: string[] = [];
  const seen = new Set<string>();
  const reads = contentReads(summarized);
  for (let i = reads.length - 1; i >= 0 && picked.length < RESTORE_MAX_FILES; i--) {
    const path = (reads[i] as ContentRead).path;
    const k = key(path);
    if (seen.has(k) || inTail.has(k)) continue;
    seen.add(k);
    picked.push(path);
  }
  return picked;
}

/** The latest content a whole Read of `path` gave in `messages` (for Read's answer that the file is unchanged since). */
export function lastReadText(messages: readonly MessageParam[], path: string, key: (path: string) => string = (p) => p): string | undefined {
  return contentReads(messages).filter((r) => key(r.path) === key(path)).at(-1)?.text;
}

/** The attachments within the budget, in order: one that would pass it is left out, a later smaller one may still fit. */
export function withinBudget(attachments: readonly string[], budget = RESTORE_BUDGET_TOKENS): string[] {
  let used = 0;
  return attachments.filter((text) => {
    const tokens = jsonTokens(text);
    if (used + tokens > budget) return false;
    used += tokens;
    return true;
  });
}

/**
 * The compacted history with the attachments as text blocks of its first message (the summary's). Claude Code sends
 * them as a `system`-role message after the summary; the API takes only user and assistant turns, and the history
 * must stay valid for it, so they go where the summary is, each its own block in Claude Code's words.
 */
export function withAttachments(history: readonly MessageParam[], attachments: readonly string[]): MessageParam[] {
  const [first, ...rest] = history;
  if (!first || attachments.length === 0) return [...history];
  const blocks = typeof first.content === 'string' ? [{ type: 'text' as const, text: first.content }] : first.content;
  return [{ ...first, content: [...blocks, ...attachments.map((text) => ({ type: 'text' as const, text }))] } as MessageParam, ...rest];
}
