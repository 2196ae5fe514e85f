/**
 * The simulator's script (issue 39): what the learner edits on the page. The model's replies, in order, as the API
 * would put them, and the stand-in bash's output for each command; optionally the history before the prompt. Read
 * from JSON with one-line errors: a script the page cannot play says why, and nothing runs.
 */
import type { ContentBlock, MessageParam, StopReason } from '../../core/messages.js';

export interface SimReply {
  content: ContentBlock[];
  stop_reason: StopReason;
  /** Left out of `content` as if max_tokens cut it mid-input (scripted/model.ts's cutBlock). */
  cut_block?: ContentBlock;
}

/** What the stand-in bash prints for a command: its output, and whether it failed. */
export interface SimOutput {
  output: string;
  is_error?: boolean;
}

/** bash's output by command: a string (its output) or `{ output, is_error }`. */
export type SimOutputs = Record<string, string | SimOutput>;

export interface SimScript {
  prompt: string;
  /** The conversation before the prompt (default none): a history the API would refuse is refused before the run. */
  history?: MessageParam[];
  replies: SimReply[];
  /** By command: a string (its output) or `{ output, is_error }`. A command not here fails as "not scripted". */
  bash: SimOutputs;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const STOP_REASONS = new Set(['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'pause_turn', 'refusal']);

function checkReply(value: unknown, i: number): SimReply {
  const where = `replies[${i}]`;
  if (!isObject(value)) throw new Error(`${where} is not an object`);
  if (!Array.isArray(value.content) || !value.content.every((b) => isObject(b) && typeof b.type === 'string')) {
    throw new Error(`${where}.content must be a list of blocks, each with a "type"`);
  }
  if (typeof value.stop_reason !== 'string' || !STOP_REASONS.has(value.stop_reason)) {
    throw new Error(`${where}.stop_reason must be one of ${[...STOP_REASONS].join(', ')}`);
  }
  if (value.cut_block !== undefined && !isObject(value.cut_block)) throw new Error(`${where}.cut_block must be a block`);
  return value as unknown as SimReply;
}

function checkBash(value: unknown): Record<string, string | SimOutput> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new Error('bash must map each command to its output');
  for (const [command, out] of Object.entries(value)) {
    if (typeof out === 'string') continue;
    if (!isObject(out) || typeof out.output !== 'string' || (out.is_error !== undefined && typeof out.is_error !== 'boolean')) {
      throw new Error(`bash["${command}"] must be a string or { "output": string, "is_error"?: boolean }`);
    }
  }
  return value as Record<string, string | SimOutput>;
}

/** The script in `text`, or an Error with one line saying what is wrong. */
export function parseScript(text: string): SimScript {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`the script is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new Error('the script must be a JSON object');
  if (typeof value.prompt !== 'string' || value.prompt === '') throw new Error('prompt must be a non-empty string');
  if (!Array.isArray(value.replies)) throw new Error('replies must be a list');
  if (value.history !== undefined && !Array.isArray(value.history)) throw new Error('history must be a list of messages');
  return {
    prompt: value.prompt,
    ...(value.history ? { history: value.history as MessageParam[] } : {}),
    replies: value.replies.map(checkReply),
    bash: checkBash(value.bash),
  };
}
