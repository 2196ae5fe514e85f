import { scriptedModel, reply, type ScriptedModel } from '../scripted/model.js';
import type { ModelRequest } from '../core/model.js';
import { plural } from '../core/plural.js';

export const DEMO_PROMPT = 'List the files in the working directory.';
export const DEMO_MODEL_ID = 'scripted-demo';
export const DEMO_BANNER =
  '[demo] The model is scripted (no API key, no network): it plays the two-turn example. The machine and the bash tool are real.';

/** The content of the newest tool_result in a request, as text. */
function lastToolResult(request: ModelRequest): { text: string; isError: boolean } | undefined {
  const last = request.messages[request.messages.length - 1];
  if (!last || typeof last.content === 'string') return undefined;
  const result = last.content.find((b) => b.type === 'tool_result');
  if (!result || result.type !== 'tool_result') return undefined;
  const text = typeof result.content === 'string' ? result.content : JSON.stringify(result.content ?? '');
  return { text, isError: result.is_error === true };
}

/**
 * The tutorial's two-turn example: turn 1 asks for `ls -A`; turn 2 answers from the real output
 * that the loop sent back in the tool_result.
 */
export function demoModel(): ScriptedModel {
  return scriptedModel([
    reply.toolUse(
      [{ id: 'toolu_demo_01', name: 'bash', input: { command: 'ls -A' } }],
      "I'll list the files in the working directory.",
    ),
    (request) => {
      const result = lastToolResult(request);
      if (!result) return reply.text('I did not get the output of ls back.');
      if (result.isError) return reply.text(`The command failed:\n${result.text}`);
      const names = result.text === '(no output)' ? [] : result.text.split('\n').filter(Boolean);
      if (names.length === 0) return reply.text('The working directory is empty.');
      return reply.text(`The working directory has ${plural(names.length, 'entry')}:\n${names.map((n) => `- ${n}`).join('\n')}`);
    },
  ]);
}
