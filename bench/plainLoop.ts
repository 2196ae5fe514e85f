/**
 * The tutorial's plain agent loop, in TypeScript: call the model, append its reply, run every
 * tool_use, append the results, repeat until the model stops asking for tools. No states, no
 * retries, no streaming tools, no validation: the baseline agentloop's overhead is measured
 * against.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Tool } from '../src/core/tool.js';

export interface PlainLoopOptions {
  client: Anthropic;
  model: string;
  system: string;
  maxTokens: number;
  tools: Tool[];
  cwd: string;
  /**
   * `true`: `messages.stream(...).finalMessage()` (the SDK's MessageStream) instead of the
   * tutorial's `messages.create(...)`; `'events'`: `messages.create({ stream: true })`, the raw
   * events put together by hand, the least a streaming loop can do with the SDK.
   */
  stream?: boolean | 'events';
  /** Told how long each model call took (ms), for the benchmark's breakdown. */
  onModelCall?: (ms: number) => void;
}

export interface PlainLoopResult {
  messages: Anthropic.MessageParam[];
  turns: number;
  text: string;
}

/** One model call and one round of tools, as the plain loop does them (shared with xstateLoop.ts). */
export function plainLoopStep(options: PlainLoopOptions) {
  const { client, model, system, maxTokens, tools, cwd } = options;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const definitions = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  const signal = new AbortController().signal;
  return {
    async call(messages: Anthropic.MessageParam[]): Promise<Anthropic.ContentBlock[]> {
      const params = { model, max_tokens: maxTokens, system, tools: definitions, messages };
      const callStart = performance.now();
      const response =
        options.stream === 'events'
          ? await fromEvents(await client.messages.create({ ...params, stream: true }))
          : options.stream
            ? await client.messages.stream(params).finalMessage()
            : await client.messages.create(params);
      options.onModelCall?.(performance.now() - callStart);
      return response.content;
    },
    /** The results of the reply's tool_use blocks, in order; none when it has none. */
    async runTools(content: Anthropic.ContentBlock[]): Promise<Anthropic.ToolResultBlockParam[]> {
      const results: Anthropic.ToolResultBlockParam[] = [];
      for (const block of content) {
        if (block.type !== 'tool_use') continue;
        const tool = byName.get(block.name);
        const output = tool
          ? await tool.run(block.input, { cwd, signal })
          : { content: `Unknown tool ${block.name}`, isError: true };
        results.push({ type: 'tool_result', tool_use_id: block.id, content: output.content, is_error: output.isError });
      }
      return results;
    },
  };
}

export async function plainLoop(prompt: string, options: PlainLoopOptions): Promise<PlainLoopResult> {
  const step = plainLoopStep(options);
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: prompt }];
  let turns = 0;

  while (true) {
    const content = await step.call(messages);
    turns += 1;
    messages.push({ role: 'assistant', content });
    const results = await step.runTools(content);
    if (results.length === 0) {
      const text = content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      return { messages, turns, text };
    }
    messages.push({ role: 'user', content: results });
  }
}

/** The reply of a raw event stream: blocks opened, deltas appended, tool input parsed at the end. */
async function fromEvents(events: AsyncIterable<Anthropic.RawMessageStreamEvent>): Promise<{ content: Anthropic.ContentBlock[] }> {
  const content: Anthropic.ContentBlock[] = [];
  const json: string[] = [];
  for await (const event of events) {
    if (event.type === 'content_block_start') {
      content[event.index] = { ...event.content_block };
      json[event.index] = '';
    } else if (event.type === 'content_block_delta') {
      const block = content[event.index];
      if (event.delta.type === 'text_delta' && block?.type === 'text') block.text += event.delta.text;
      if (event.delta.type === 'input_json_delta') json[event.index] += event.delta.partial_json;
    } else if (event.type === 'content_block_stop') {
      const block = content[event.index];
      if (block?.type === 'tool_use' && json[event.index]) block.input = JSON.parse(json[event.index] as string);
    }
  }
  return { content };
}
