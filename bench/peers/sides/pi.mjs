// pi-agent-core: an Agent with one bash tool (tools run in parallel, its default), the Anthropic model of pi-ai
// pointed at the local server.
import { Agent } from '@mariozechner/pi-agent-core';
import { getModel } from '@mariozechner/pi-ai';
import { Type } from 'typebox';
import { BASH_DESCRIPTION, MODEL, SYSTEM, runBash } from './shell.mjs';

const model = { ...getModel('anthropic', MODEL), baseUrl: process.env.ANTHROPIC_BASE_URL };
const bash = {
  name: 'bash',
  label: 'bash',
  description: BASH_DESCRIPTION,
  parameters: Type.Object({ command: Type.String() }),
  execute: async (_id, { command }) => {
    const { output, isError } = await runBash(command);
    if (isError) throw new Error(output);
    return { content: [{ type: 'text', text: output }], details: {} };
  },
};
const agent = new Agent({
  initialState: { systemPrompt: SYSTEM, model, tools: [bash] },
  getApiKey: () => process.env.ANTHROPIC_API_KEY,
});
await agent.prompt(process.argv[2]);
const last = agent.state.messages.at(-1);
if (last?.role !== 'assistant' || last.stopReason === 'error') {
  console.error(`pi: the run failed: ${last?.errorMessage ?? JSON.stringify(last)}`);
  process.exitCode = 1;
}
console.log((last?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join(''));
