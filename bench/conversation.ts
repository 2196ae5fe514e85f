/**
 * The scripted conversation and the tool shared by the loop-overhead benchmark's two sides: the
 * same replies from the same server, the same echo tool, the same system prompt and limits.
 */
import type { ReplyStep, RequestBody, Step } from '../test/support/messagesServer.js';
import type { Tool } from '../src/core/tool.js';

/** Model calls in one conversation: 49 that ask for the tool, then a final answer. */
export const TURNS = 50;

/** A tool that answers its input: no I/O, so the loops' own costs show. */
export const echoTool: Tool = {
  name: 'echo',
  description: 'Answers with the text it is given.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  isConcurrencySafe: () => false,
  run: async (input) => ({ content: String((input as { text?: unknown }).text ?? ''), isError: false }),
};

/**
 * The reply to a request of the conversation, computed from the history alone (so any number of
 * conversations can share the server): a tool_use until `TURNS - 1` replies are in, then text.
 */
export function conversationStep(body: RequestBody): ReplyStep {
  const done = body.messages.filter((m) => m.role === 'assistant').length;
  if (done < TURNS - 1) {
    return {
      content: [
        { type: 'text', text: `Step ${done + 1}: calling the tool.` },
        { type: 'tool_use', id: `toolu_bench_${done + 1}`, name: 'echo', input: { text: `turn ${done + 1}` } },
      ],
      stop_reason: 'tool_use',
    };
  }
  return { content: [{ type: 'text', text: `Done after ${done + 1} turns.` }], stop_reason: 'end_turn' };
}

export const conversationStepFn: Step = (body) => conversationStep(body);
