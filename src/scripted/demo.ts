/**
 * The offline demo's model: the tutorial's two-turn example, played by a scripted model that
 * answers from what it was sent, as a real model does. Without a tool_result in the newest
 * message it asks for `ls -A`; with one, it answers from that real output. So a loop that loses
 * the result (src/mistakes/) sees the model ask again, or answer without the file list.
 */
import type { StopReason } from '../core/messages.js';
import type { ModelRequest } from '../core/model.js';
import { reply, respondingModel, type ScriptedModel, type ScriptedReply } from './model.js';
import { plural } from '../core/plural.js';

export const DEMO_PROMPT = 'List the files in the working directory.';
export const DEMO_MODEL_ID = 'scripted-demo';
export const DEMO_COMMAND = 'ls -A';

/** The content of the newest message's first tool_result, as text (none: `undefined`). */
function lastToolResult(request: ModelRequest): { text: string; isError: boolean } | undefined {
  const last = request.messages[request.messages.length - 1];
  if (!last || last.role !== 'user' || typeof last.content === 'string') return undefined;
  const result = last.content.find((b) => b.type === 'tool_result');
  if (!result || result.type !== 'tool_result') return undefined;
  const text = typeof result.content === 'string' ? result.content : JSON.stringify(result.content ?? '');
  return { text, isError: result.is_error === true };
}

/** The id of the demo's n-th tool call: toolu_demo_01, toolu_demo_02, ... */
export function demoToolUseId(call: number): string {
  return `toolu_demo_${String(call).padStart(2, '0')}`;
}

export interface DemoModelOptions {
  /**
   * The `stop_reason` of a reply that asks for a tool (default `tool_use`). A streamed reply can
   * carry a tool_use while its stop_reason says otherwise, or has not arrived yet: `end_turn`
   * plays that.
   */
  toolUseStopReason?: StopReason;
}

/** The offered tool that runs commands (its input has a `command`), as a model picks one from the request's tools. */
function commandTool(request: ModelRequest): string | undefined {
  const runs = (tool: { input_schema: { properties?: unknown } }) => Object.hasOwn((tool.input_schema.properties ?? {}) as object, 'command');
  return request.tools?.find(runs)?.name;
}

/** What the demo model answers to `request`, its `call`-th call. */
export function demoReply(request: ModelRequest, call: number, options: DemoModelOptions = {}): ScriptedReply {
  const result = lastToolResult(request);
  if (!result) {
    const tool = commandTool(request);
    if (tool === undefined) return reply.text('I have no tool to run commands with, so I cannot list the files.');
    const ask = reply.toolUse([{ id: demoToolUseId(call), name: tool, input: { command: DEMO_COMMAND } }], "I'll list the files in the working directory.");
    return { ...ask, stop_reason: options.toolUseStopReason ?? 'tool_use' };
  }
  if (result.isError) return reply.text(`The command failed:\n${result.text}`);
  const names = result.text === '(no output)' ? [] : result.text.split('\n').filter(Boolean);
  if (names.length === 0) return reply.text('The working directory is empty.');
  return reply.text(`The working directory has ${plural(names.length, 'entry')}:\n${names.map((n) => `- ${n}`).join('\n')}`);
}

/** The demo's model: turn 1 asks for `ls -A`; turn 2 answers from the real output sent back in the tool_result. */
export function demoModel(options: DemoModelOptions = {}): ScriptedModel {
  return respondingModel((request, call) => demoReply(request, call, options));
}
