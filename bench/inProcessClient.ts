/**
 * The SDK's client taken in process, for the growth benchmarks (bench/growth.ts, growthSides.ts): no socket, the
 * stream events built in memory, and a tool that does nothing. Its own file, so the two benchmarks import it and not
 * each other.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ToolUseBlock } from '../src/core/messages.js';
import type { Tool } from '../src/core/tool.js';

export const noopTool: Tool = {
  name: 'noop',
  description: 'Does nothing.',
  inputSchema: { type: 'object', properties: {} },
  run: async () => ({ content: 'ok', isError: false }),
};

/** The stream of a reply of one block, as the API sends it (message_start … message_stop). */
function streamOf(block: ToolUseBlock | { type: 'text'; text: string }): unknown[] {
  const usage = { input_tokens: 0, output_tokens: 0 };
  const delta = block.type === 'text' ? { type: 'text_delta', text: block.text } : { type: 'input_json_delta', partial_json: '{}' };
  return [
    { type: 'message_start', message: { id: 'msg_bench', type: 'message', role: 'assistant', model: 'bench', content: [], stop_reason: null, usage } },
    { type: 'content_block_start', index: 0, content_block: block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} } },
    { type: 'content_block_delta', index: 0, delta },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: block.type === 'text' ? 'end_turn' : 'tool_use', stop_sequence: null }, usage },
    { type: 'message_stop' },
  ];
}

/**
 * The SDK's client taken in process: `create` serialises the body it is given, as the SDK does (`serialise`, timed by
 * the caller), then streams a tool_use on every call before `turns`, then a text.
 */
export function inProcessClient(turns: number, serialise: (body: object) => void): Anthropic {
  let call = 0;
  const create = async (body: object) => {
    serialise(body);
    call += 1;
    const events = streamOf(call < turns ? { type: 'tool_use', id: `toolu_${call}`, name: 'noop', input: {} } : { type: 'text', text: 'done' });
    return (async function* () {
      yield* events;
    })();
  };
  return { messages: { create } } as unknown as Anthropic;
}
