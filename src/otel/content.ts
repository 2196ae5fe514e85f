/**
 * The run's content in the shapes the GenAI conventions give it (`gen_ai.input.messages`, `gen_ai.output.messages`,
 * `gen_ai.system_instructions`): messages of parts, each part a `text`, `tool_call`, `tool_call_response` or
 * `reasoning`. Images and documents are named by their type, without their data. Every string goes through `clean`
 * (the run's redaction of secrets) before it is serialised. Pure.
 */
import type { MessageParam } from '../core/messages.js';

type Clean = (text: string) => string;
type Part = Record<string, unknown>;

function textOfResult(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : `[${b.type ?? 'block'}]`)).join('');
}

function partOf(block: Record<string, unknown>, clean: Clean): Part {
  switch (block.type) {
    case 'text':
      return { type: 'text', content: clean(String(block.text ?? '')) };
    case 'thinking':
      return { type: 'reasoning', content: clean(String(block.thinking ?? '')) };
    case 'tool_use':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: JSON.parse(clean(JSON.stringify(block.input ?? {}))) };
    case 'tool_result':
      return { type: 'tool_call_response', id: block.tool_use_id, response: clean(textOfResult(block.content)) };
    default:
      return { type: String(block.type ?? 'unknown') };
  }
}

function partsOf(content: MessageParam['content'], clean: Clean): Part[] {
  if (typeof content === 'string') return [{ type: 'text', content: clean(content) }];
  return content.map((block) => partOf(block as unknown as Record<string, unknown>, clean));
}

/** `gen_ai.input.messages`: the messages of one request, as JSON. */
export function inputMessages(messages: readonly MessageParam[], clean: Clean): string {
  return JSON.stringify(messages.map((m) => ({ role: m.role, parts: partsOf(m.content, clean) })));
}

/** `gen_ai.output.messages`: the reply, with its finish reason. */
export function outputMessages(message: MessageParam, finishReason: string | null, clean: Clean): string {
  return JSON.stringify([{ role: 'assistant', parts: partsOf(message.content, clean), finish_reason: finishReason ?? 'unknown' }]);
}

/** `gen_ai.system_instructions`. */
export function systemInstructions(system: unknown, clean: Clean): string | undefined {
  if (typeof system === 'string') return system ? JSON.stringify([{ type: 'text', content: clean(system) }]) : undefined;
  if (!Array.isArray(system)) return undefined;
  return JSON.stringify(system.map((b: { text?: string }) => ({ type: 'text', content: clean(b.text ?? '') })));
}

/** A tool's input or result as the `gen_ai.tool.call.*` attributes hold it. */
export function toolContent(value: unknown, clean: Clean): string {
  return clean(typeof value === 'string' ? value : JSON.stringify(value ?? null));
}
