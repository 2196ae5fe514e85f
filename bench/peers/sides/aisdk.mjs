// The Vercel AI SDK: streamText with the Anthropic provider and one bash tool, up to 50 steps.
import { createAnthropic } from '@ai-sdk/anthropic';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { BASH_DESCRIPTION, BASH_SCHEMA, MODEL, SYSTEM, runBash } from './shell.mjs';

// The provider's baseURL includes the /v1 of the API's paths.
const anthropic = createAnthropic({ baseURL: `${process.env.ANTHROPIC_BASE_URL}/v1` });
const bash = tool({
  description: BASH_DESCRIPTION,
  inputSchema: jsonSchema(BASH_SCHEMA),
  execute: async ({ command }) => {
    const { output, isError } = await runBash(command);
    if (isError) throw new Error(output);
    return output;
  },
});
const result = streamText({
  model: anthropic(MODEL),
  system: SYSTEM,
  prompt: process.argv[2],
  tools: { bash },
  stopWhen: stepCountIs(50),
  maxOutputTokens: 8000,
  onError: ({ error }) => {
    console.error(error);
    process.exitCode = 1;
  },
});
await result.consumeStream();
console.log(await result.text);
