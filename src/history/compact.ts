/**
 * Compaction's plan, pure: which old tool results to clear, where the boundary goes (never between a tool_use and its
 * tool_result), the request for the summary (kept within the window), and the history after the boundary.
 * run/compaction.ts makes the call; docs/loop.md ("Compaction") tells the whole of it.
 */
import type { MessageParam } from '../core/messages.js';
import type { ModelRequest } from '../core/model.js';
import { CLEARED_TOOL_RESULT, COMPACT_PROMPT, COMPACT_REMINDER, compactInstructions, compactedHistoryText } from '../core/prompts.js';
import { jsonTokens } from './tokens.js';

type Block = Exclude<MessageParam['content'], string>[number];

const blocksOf = (message: MessageParam): Block[] => (typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content);

/** The estimated tokens of messages (./tokens.ts). */
export function messagesTokens(messages: readonly MessageParam[]): number {
  return messages.reduce((sum, m) => sum + jsonTokens(m), 0);
}

/**
 * The history with the content of every tool result before message `keepFrom` cleared (CLEARED_TOOL_RESULT; an
 * error stays marked one), and how many were cleared. The tool_use / tool_result pairs stay as they were.
 */
export function clearToolResults(messages: readonly MessageParam[], keepFrom: number): { messages: MessageParam[]; cleared: number } {
  let cleared = 0;
  const out = messages.map((message, index) => {
    if (index >= keepFrom || message.role !== 'user' || typeof message.content === 'string') return message;
    if (!message.content.some((b) => b.type === 'tool_result' && b.content !== CLEARED_TOOL_RESULT)) return message;
    const content = message.content.map((block) => {
      if (block.type !== 'tool_result' || block.content === CLEARED_TOOL_RESULT) return block;
      cleared++;
      return { ...block, content: CLEARED_TOOL_RESULT };
    });
    return { ...message, content };
  });
  return { messages: out, cleared };
}

/** The index of the last user message that carries tool results (its results are the ones the model acts on now). */
export function lastResultsIndex(messages: readonly MessageParam[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as MessageParam;
    if (m.role === 'user' && typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result')) return i;
  }
  return messages.length;
}

/**
 * Where the kept tail starts: the earliest assistant message (index ≥ 1) from which the rest of the history fits in
 * `keepTokens`, so a tool_use and its result (in the message after it) are on the same side; none fits: the end
 * (everything is summarized).
 */
export function boundaryIndex(messages: readonly MessageParam[], keepTokens: number): number {
  let tail = 0;
  let boundary = messages.length;
  for (let i = messages.length - 1; i >= 1; i--) {
    tail += jsonTokens(messages[i]);
    if (tail > keepTokens) break;
    if ((messages[i] as MessageParam).role === 'assistant') boundary = i;
  }
  return boundary;
}

/** The messages with the summary prompt as the last user text (joined to the last user message, as Claude Code sends it). */
export function withCompactPrompt(messages: readonly MessageParam[], instructions: string | undefined): MessageParam[] {
  const prompt: Block = { type: 'text', text: `${COMPACT_PROMPT}${instructions ? compactInstructions(instructions) : ''}${COMPACT_REMINDER}` };
  const last = messages[messages.length - 1];
  if (last?.role !== 'user') return [...messages, { role: 'user', content: [prompt] }];
  return [...messages.slice(0, -1), { role: 'user', content: [...blocksOf(last), prompt] }];
}

/** Whether a request is compaction's request for a summary (a model service can answer it apart: scripted/model.ts). */
export function isCompactRequest(request: Pick<ModelRequest, 'messages'>): boolean {
  const last = request.messages[request.messages.length - 1];
  if (!last || last.role !== 'user' || typeof last.content === 'string') return false;
  const text = last.content[last.content.length - 1];
  return text?.type === 'text' && text.text.startsWith(COMPACT_PROMPT.slice(0, 40));
}

/**
 * The request for a summary of `summarized`, within `limit` tokens: as it is if it fits; else with old tool results
 * cleared, then all of them; then without the oldest messages (cut before an assistant message, a note in their place).
 */
export function summaryRequest(
  base: Omit<ModelRequest, 'messages'>,
  summarized: readonly MessageParam[],
  instructions: string | undefined,
  limit: number,
): { request: ModelRequest; cleared: number; omitted: number } {
  const prefix = jsonTokens(base.system) + jsonTokens(base.tools) + jsonTokens(withCompactPrompt([], instructions));
  const fits = (messages: readonly MessageParam[]) => prefix + messagesTokens(messages) <= limit;
  const make = (messages: readonly MessageParam[], cleared: number, omitted: number) => ({
    request: { ...base, messages: withCompactPrompt(messages, instructions) },
    cleared,
    omitted,
  });
  if (fits(summarized)) return make(summarized, 0, 0);
  const recent = clearToolResults(summarized, lastResultsIndex(summarized));
  if (fits(recent.messages)) return make(recent.messages, recent.cleared, 0);
  const all = clearToolResults(summarized, summarized.length);
  const cleared = all.cleared;
  for (let cut = 1; cut < all.messages.length; cut++) {
    if ((all.messages[cut] as MessageParam).role !== 'assistant') continue;
    const rest = [omittedNote(cut), ...all.messages.slice(cut)];
    if (fits(rest)) return make(rest, cleared, cut);
  }
  // Not even the last exchange fits: the summary is asked of the note alone (the API's refusal ends the run).
  return make([omittedNote(all.messages.length)], cleared, all.messages.length);
}

function omittedNote(count: number): MessageParam {
  return { role: 'user', content: [{ type: 'text', text: `[The first ${count} messages of the conversation are left out: they did not fit in the context window.]` }] };
}

/** The summary in a reply: the text of its <summary> block (the <analysis> left out), else its whole text. */
export function summaryOf(text: string): string {
  const withoutAnalysis = text.replace(/<analysis>[\s\S]*?<\/analysis>/g, '');
  const inner = /<summary>([\s\S]*?)<\/summary>/.exec(withoutAnalysis);
  return (inner ? (inner[1] as string) : withoutAnalysis).trim();
}

const LATEST = "The user's latest request, verbatim:\n";

/** The user's latest question among `messages` (text, not tool results), verbatim; from an earlier summary's record of it too. */
export function latestRequest(messages: readonly MessageParam[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as MessageParam;
    if (m.role !== 'user') continue;
    const text = blocksOf(m).flatMap((b) => (b.type === 'text' && !b.text.startsWith(COMPACT_PROMPT.slice(0, 40)) ? [b.text] : [])).join('\n').trim();
    if (text === '') continue;
    if (!text.startsWith('This session is being continued')) return text;
    const at = text.indexOf(LATEST);
    if (at < 0) return undefined;
    const rest = text.slice(at + LATEST.length);
    return rest.split(/\n\n(?:Files in play|If you need specific details|Continue the conversation)/)[0];
  }
  return undefined;
}

/** The files the summarized part worked on (a tool's `file_path`, `path` or `notebook_path`), the latest last, at most 20. */
export function filesInPlay(messages: readonly MessageParam[]): string[] {
  const seen: string[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type !== 'tool_use' || typeof b.input !== 'object' || b.input === null) continue;
      const input = b.input as Record<string, unknown>;
      const path = [input.file_path, input.path, input.notebook_path].find((v): v is string => typeof v === 'string' && v !== '');
      if (path === undefined) continue;
      const at = seen.indexOf(path);
      if (at >= 0) seen.splice(at, 1);
      seen.push(path);
    }
  }
  return seen.slice(-20);
}

/** The history after the boundary: one user message with the summary and what is kept beside it, then the kept tail. */
export function compactedHistory(summary: string, summarized: readonly MessageParam[], tail: readonly MessageParam[], transcriptPath?: string): MessageParam[] {
  const latest = latestRequest(summarized);
  const tailHasIt = latest !== undefined && latestRequest(tail) !== undefined;
  const text = compactedHistoryText(summary, {
    ...(latest !== undefined && !tailHasIt ? { latestRequest: latest } : {}),
    files: filesInPlay(summarized),
    ...(transcriptPath ? { transcriptPath } : {}),
  });
  return [{ role: 'user', content: [{ type: 'text', text }] }, ...tail];
}

/** What the machine hands the compaction actor (run/compaction.ts): the history and the request it would send. */
export interface CompactInput {
  trigger: 'threshold' | 'prompt_too_long' | 'manual';
  messages: MessageParam[];
  /** The request's settings as the loop sends them (model, max_tokens, system, tools, thinking), without messages. */
  base: Omit<ModelRequest, 'messages'>;
  turnCount: number;
  /** The next request's estimated tokens (./tokens.ts). */
  tokensBefore: number;
  /** The context window: the model's or the user's, else the one a refusal named; none known: `tokensBefore`. */
  window: number | undefined;
  /** The tokens past which the loop compacts (./tokens.ts `compactThreshold`). */
  threshold: number | undefined;
  strategy: 'auto' | 'summary';
  instructions?: string;
}

/** The window a refusal names: the API's "prompt is too long: 210000 tokens > 200000 maximum". */
export function windowFromRefusal(message: string | undefined): number | undefined {
  const match = /(\d+)\s*tokens\s*>\s*(\d+)\s*maximum/i.exec(message ?? '');
  return match ? Number(match[2]) : undefined;
}
