/**
 * A task whose tools print more than the context window holds, as the local Messages API server plays it: the model
 * runs `chunks` commands that each print `chars` characters, then answers; a summary request (history/compact.ts)
 * is answered with a summary. Refused requests (the server's `contextWindow`) take no step. And the same task in
 * process, for a scripted model: the `print` tool and its five calls, too large together for `PRINT_WINDOW`.
 */
import { isCompactRequest } from '../../src/history/compact.js';
import type { MessageParam } from '../../src/core/messages.js';
import { reply } from '../../src/scripted/model.js';
import { defineTool } from '../../src/tools/define.js';
import { s } from '../../src/tools/schema.js';
import type { MessagesServer, ReplyStep, RequestBody } from './messagesServer.js';

export const SUMMARY = 'The user asked to print the chunks one by one; some are printed, the rest are to print.';
export const DONE = 'All chunks printed.';

export const isSummaryBody = (body: RequestBody | undefined): boolean => body !== undefined && isCompactRequest({ messages: body.messages as MessageParam[] });

/** Queues the task's replies; `followUp(text)`: the answer to the next question after the task. */
export function printingTask(server: MessagesServer, { chunks, chars }: { chunks: number; chars: number }): { followUp(text: string): void } {
  let printed = 0;
  const followUps: string[] = [];
  const step = (body: RequestBody): ReplyStep => {
    if (isSummaryBody(body)) return { content: [{ type: 'text', text: `<analysis>a</analysis>\n<summary>${SUMMARY}</summary>` }], stop_reason: 'end_turn' };
    printed++;
    if (printed > chunks) return { content: [{ type: 'text', text: printed === chunks + 1 ? DONE : (followUps.shift() ?? DONE) }], stop_reason: 'end_turn' };
    const command = `head -c ${chars} /dev/zero | tr '\\0' x; echo " chunk ${printed}"`;
    return { content: [{ type: 'tool_use', id: `toolu_chunk${printed}`, name: 'bash', input: { command } }], stop_reason: 'tool_use' };
  };
  for (let i = 0; i < chunks * 3 + 6; i++) server.enqueue(step);
  return { followUp: (text) => followUps.push(text) };
}

/** The tokens the server counts for a request (its default `inputTokens`: the JSON body's length / 4). */
export const serverTokens = (body: RequestBody | undefined): number => Math.max(1, Math.ceil(JSON.stringify(body).length / 4));

/** A context window (tokens) that five of `print`'s chunks overflow. */
export const PRINT_WINDOW = 4000;

/** A tool that prints a chunk of 6,000 characters: `chunk N: xxx…`. */
export const print = defineTool({
  name: 'print',
  description: 'Prints a chunk',
  input: s.object({ n: s.number() }),
  run: async ({ n }) => ({ content: `chunk ${n}: ${'x'.repeat(6000)}`, isError: false }),
});

/** Five replies of a scripted model, each calling `print` with 1 … 5. */
export const printUses = () => [1, 2, 3, 4, 5].map((n) => reply.toolUse([{ id: `toolu_${n}`, name: 'print', input: { n } }]));
