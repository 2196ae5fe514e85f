/**
 * The Messages API's answer to a history the validator finds invalid, in the API's own words, so
 * that a demo fails the way a real run fails. The texts are the ones users of other harnesses
 * report from the API (400 invalid_request_error), with the message and block index it names.
 */
import type { MessageParam } from '../core/messages.js';
import { ModelError, type ModelCall } from '../core/model.js';
import { historyProblems } from '../history/validate.js';

type Block = Exclude<MessageParam['content'], string>[number];

const blocksOf = (m: MessageParam | undefined): Block[] => (m === undefined || typeof m.content === 'string' ? [] : m.content);

/**
 * The error message the API gives for `messages`, for the rules it states in its own words: a
 * tool_result without its `tool_use_id` (checked first, with the request's shape), a tool_use
 * not answered in the next message, a tool_result that answers no tool_use of the message before.
 * `undefined` when none of these is broken.
 */
export function apiErrorFor(messages: readonly MessageParam[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    for (const [j, block] of blocksOf(message).entries()) {
      if (block.type === 'tool_result' && typeof block.tool_use_id !== 'string') return `messages.${i}.content.${j}.tool_result.tool_use_id: Field required`;
    }
  }
  for (const [i, message] of messages.entries()) {
    const blocks = blocksOf(message);
    if (message.role === 'assistant') {
      const answered = new Set(blocksOf(messages[i + 1]).flatMap((b) => (b.type === 'tool_result' && messages[i + 1]?.role === 'user' ? [b.tool_use_id] : [])));
      const missing = blocks.flatMap((b) => (b.type === 'tool_use' && !answered.has(b.id) ? [b.id] : []));
      if (missing.length > 0) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
      continue;
    }
    const previous = messages[i - 1];
    const asked = new Set(previous?.role === 'assistant' ? blocksOf(previous).flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : []);
    for (const [j, block] of blocks.entries()) {
      if (block.type === 'tool_result' && !asked.has(block.tool_use_id)) {
        return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
  }
  return undefined;
}

/** What the API and the validator say of a history. */
export interface Verdict {
  /** historyProblems (src/history/validate.ts): empty when the history may be sent. */
  problems: string[];
  /** The API's 400 message for it, when it is one of the cases `apiErrorFor` knows. */
  apiError: string | undefined;
}

export function verdictOf(messages: readonly MessageParam[]): Verdict {
  return { problems: historyProblems(messages), apiError: apiErrorFor(messages) };
}

/**
 * The model call behind an API that checks what it is sent: a request whose history is invalid
 * is reported (`onRequest`, so the transcript has it) and refused with a 400, as the API refuses
 * it; a valid one goes on to `model`.
 */
export function checkedByApi(model: ModelCall): ModelCall {
  return async (input, signal) => {
    const { problems, apiError } = verdictOf(input.request.messages);
    if (problems.length === 0 && apiError === undefined) return model(input, signal);
    input.onRequest?.(input.request);
    throw new ModelError('invalid_request', apiError ?? `invalid message history: ${problems.join('; ')}`, {
      status: 400,
      apiType: 'invalid_request_error',
    });
  };
}
