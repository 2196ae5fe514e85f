import type Anthropic from '@anthropic-ai/sdk';
import { historyProblems } from '../../src/history/validate.js';
import { startMessagesServer, type MessagesServer, type RequestBody, type ServerOptions, type Step } from './messagesServer.js';

/** A local Messages API server that rejects (and records) every request with an invalid history. */
export function startCheckedServer(options: Omit<ServerOptions, 'validate'> = {}): Promise<MessagesServer> {
  return startMessagesServer({
    ...options,
    validate: (body) => {
      const problems = historyProblems(body.messages);
      if (problems.length > 0) throw new Error(problems.join('; '));
    },
  });
}

/**
 * The tool_result blocks of the newest user message of a request, in the order of the tool_use blocks they answer.
 * The request itself carries the results of concurrency-safe calls in the order the calls ended (as Claude Code's does),
 * which varies from run to run; a test of that order reads the message itself (test/cli/printers/concurrentTools.ts).
 */
export function lastToolResults(body: RequestBody): Anthropic.ToolResultBlockParam[] {
  const last = body.messages[body.messages.length - 1];
  if (!last || typeof last.content === 'string') return [];
  const results = last.content.flatMap((b) => (b.type === 'tool_result' ? [b] : []));
  const asked = body.messages[body.messages.length - 2]?.content;
  const ids = typeof asked === 'string' || !asked ? [] : asked.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
  const at = (id: string) => (ids.includes(id) ? ids.indexOf(id) : ids.length);
  return results.sort((a, b) => at(a.tool_use_id) - at(b.tool_use_id));
}

export function resultText(result: Anthropic.ToolResultBlockParam): string {
  return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
}

/** A scripted final answer that quotes the tool results it was sent. */
export const answerFromResults: Step = (body) => ({
  content: [{ type: 'text', text: `Results: ${lastToolResults(body).map(resultText).join(' | ')}` }],
  stop_reason: 'end_turn',
});

export const bashUse = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'bash', input: { command } });

/** The text of a request's first message: the prompt its conversation started with. */
export function firstPrompt(body: RequestBody): string {
  const content = body.messages[0]?.content ?? '';
  if (typeof content === 'string') return content;
  const text = content.find((b) => b.type === 'text');
  return text && text.type === 'text' ? text.text : '';
}
