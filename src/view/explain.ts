/**
 * One sentence per step of the timeline, made from what the transcript recorded for it: the
 * state entered, the branch that led there, the reply's tool_use blocks, the retry, the exit
 * reason. The viewer shows it under the diagram, so a run can be followed without other text.
 */
import type { MessageParam, ToolUseBlock } from '../core/messages.js';

export interface StepFacts {
  state: string;
  /** Key of the previous step's state (null for the first step). */
  from: string | null;
  turnCount: number;
  transitionReason: string | null;
  exitReason: string | null;
  /** Guards that fired on the way here (`hasToolUse`, `else`, ...), in order. */
  guards: string[];
  /** The latest assistant message at this step. */
  reply?: MessageParam;
  /** Messages first in the history at this step. */
  added: Array<{ index: number; message: MessageParam }>;
  /** Messages sent in this step's request. */
  requestMessages?: number;
  retry?: { attempt: number; delayMs: number; error: string };
  error?: string;
  resumed?: boolean;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function toolUses(message: MessageParam | undefined): ToolUseBlock[] {
  if (!message || typeof message.content === 'string') return [];
  return message.content.flatMap((b) => (b.type === 'tool_use' ? [b as ToolUseBlock] : []));
}

function describeUse(block: ToolUseBlock): string {
  const input = block.input as { command?: unknown } | null; // a damaged transcript may hold any input
  return typeof input?.command === 'string' ? `${block.name}: ${input.command}` : block.name;
}

const exit = (facts: StepFacts) => (facts.exitReason ? ` (exitReason ${facts.exitReason})` : '');

function callingModel(f: StepFacts): string {
  const sent = f.requestMessages !== undefined ? ` with ${plural(f.requestMessages, 'message')}` : '';
  switch (f.transitionReason) {
    case 'tool_result':
      return `The tool results are in messages, so the loop calls the model again${sent} (turn ${f.turnCount}, transitionReason tool_result).`;
    case 'max_tokens_continuation':
      return `The reply was cut by max_tokens; the loop asks the model to continue (turn ${f.turnCount}, transitionReason max_tokens_continuation).`;
    case 'pause_turn':
      return `The API paused the turn (stop_reason pause_turn); the loop sends the conversation back so the model goes on (turn ${f.turnCount}, transitionReason pause_turn).`;
    case 'retry':
      return `After the wait the loop calls the model again with the same messages (turn ${f.turnCount}, transitionReason retry).`;
    default:
      return f.resumed
        ? `The session is resumed: the loop sends the conversation to the model${sent} (turn ${f.turnCount}).`
        : `The loop sends the prompt to the model${sent} (turn ${f.turnCount}); turnCount and transitionReason stay in the loop, never in the request.`;
  }
}

function appending(f: StepFacts): string {
  const where = f.added.length ? ` (messages[${f.added.map((a) => a.index).join('], messages[')}])` : '';
  if (f.guards.includes('needsContinuation')) {
    const text = f.added.some((a) => typeof a.message.content !== 'string' && a.message.content.some((b) => b.type === 'text'));
    return text || f.transitionReason === 'max_tokens_continuation'
      ? `The reply was cut by max_tokens: the loop keeps it and appends a user message asking the model to resume${where}.`
      : `The reply stopped with pause_turn: the loop keeps it in messages and lets the model go on${where}.`;
  }
  return `Every tool has its result: the loop writes them back as one user message of tool_result blocks, each bound to its tool_use_id${where}.`;
}

function done(f: StepFacts): string {
  const guard = f.guards.at(-1);
  if (guard === 'reachedMaxTurns' || f.exitReason === 'max_turns')
    return `The tool results are written, but the run has made its last allowed model call (turn ${f.turnCount}); the loop stops${exit(f)}.`;
  if (guard === 'isRefusal' || f.exitReason === 'refusal') return `The model refused (stop_reason refusal); the loop stops${exit(f)}.`;
  if (guard === 'isCutByMaxTokens' || f.exitReason === 'max_tokens')
    return `The reply is still cut by max_tokens after the continuations allowed in a row; the loop stops${exit(f)}.`;
  return `The reply holds no tool_use block, so needsFollowUp is false and the loop stops${exit(f)}.`;
}

/** The sentence for one step. */
export function explainStep(f: StepFacts): string {
  switch (f.state) {
    case 'callingModel':
      return callingModel(f);
    case 'executingTools': {
      const uses = toolUses(f.reply);
      const what = uses.length ? ` (${uses.map(describeUse).join('; ')})` : '';
      return uses.length === 1
        ? `The reply holds a tool_use block${what}, so needsFollowUp is true and the loop runs the tool.`
        : `The reply holds ${plural(uses.length, 'tool_use block')}${what}, so needsFollowUp is true and the loop runs the tools.`;
    }
    case 'appendingResults':
      return appending(f);
    case 'waitingToRetry':
      return f.retry
        ? `The model call failed (${f.retry.error}); it can be retried, so the loop waits ${f.retry.delayMs} ms before attempt ${f.retry.attempt + 1}.`
        : 'The model call failed and can be retried: the loop waits before calling again.';
    case 'done':
      return done(f);
    case 'failed':
      if (f.guards.at(-1) === 'isPromptTooLong' || f.exitReason === 'prompt_too_long')
        return `The API says the prompt is too long; calling again cannot help, so the run fails${exit(f)}.`;
      if (f.exitReason === 'tool_runner_error')
        return `The tool runner itself crashed; every open tool_use is answered with an error and the run fails${exit(f)}.`;
      return `The model call failed${f.error ? ` (${f.error})` : ''} and cannot be retried, so the run fails${exit(f)}.`;
    case 'aborted':
      return `The run was interrupted (ABORT): running tools are stopped and answered, so the history stays valid${exit(f)}.`;
    default:
      return `The machine enters ${f.state}.`;
  }
}
