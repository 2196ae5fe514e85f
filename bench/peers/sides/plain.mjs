// The plain loop as the SDK's tutorial writes it: messages.create, push the reply, run the tools one by one.
import Anthropic from '@anthropic-ai/sdk';
import { BASH_DESCRIPTION, BASH_SCHEMA, MODEL, SYSTEM, runBash } from './shell.mjs';

const client = new Anthropic();
const tools = [{ name: 'bash', description: BASH_DESCRIPTION, input_schema: BASH_SCHEMA }];
const messages = [{ role: 'user', content: process.argv[2] }];
for (let turn = 0; turn < 50; turn++) {
  const reply = await client.messages.create({ model: MODEL, max_tokens: 8000, system: SYSTEM, tools, messages });
  messages.push({ role: 'assistant', content: reply.content });
  const uses = reply.content.filter((block) => block.type === 'tool_use');
  if (uses.length === 0) {
    console.log(reply.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
    break;
  }
  const results = [];
  for (const use of uses) {
    const { output, isError } = await runBash(use.input.command);
    results.push({ type: 'tool_result', tool_use_id: use.id, content: output, is_error: isError });
  }
  messages.push({ role: 'user', content: results });
}
