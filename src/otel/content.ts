/**
 * The run's content in the shapes the GenAI conventions give it (`gen_ai.input.messages`, `gen_ai.output.messages`,
 * `gen_ai.system_instructions`): messages of parts, each part a `text`, `tool_call`, `tool_call_response` or
 * `reasoning`. Images and documents are named by their type, without their data. Every string of it (texts, tool names
 * and ids, arguments, keys) goes through the run's redactor (core/redact.ts, the one every text agentloop writes goes
 * through) as it is serialised. Pure.
 */
import type { MessageParam } from '../core/messages.js';
import type { Redactor } from '../core/redact.js';

type Part = Record<string, unknown>;

function textOfResult(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : `[${b.type ?? 'block'}]`)).join('');
}

function partOf(block: Record<string, unknown>): Part {
  switch (block.type) {
    case 'text':
      return { type: 'text', content: String(block.text ?? '') };
    case 'thinking':
      return { type: 'reasoning', content: String(block.thinking ?? '') };
    case 'tool_use':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: block.input ?? {} };
    case 'tool_result':
      return { type: 'tool_call_response', id: block.tool_use_id, response: textOfResult(block.content) };
    default:
      return { type: String(block.type ?? 'unknown') };
  }
}

function partsOf(content: MessageParam['content']): Part[] {
  if (typeof content === 'string') return [{ type: 'text', content }];
  return content.map((block) => partOf(block as unknown as Record<string, unknown>));
}

/** `gen_ai.input.messages`: the messages of one request, as JSON. */
export function inputMessages(messages: readonly MessageParam[], redactor: Redactor): string {
  return redactor.json(messages.map((m) => ({ role: m.role, parts: partsOf(m.content) })));
}

/** `gen_ai.output.messages`: the reply, with its finish reason. */
export function outputMessages(message: MessageParam, finishReason: string | null, redactor: Redactor): string {
  return redactor.json([{ role: 'assistant', parts: partsOf(message.content), finish_reason: finishReason ?? 'unknown' }]);
}

/** `gen_ai.system_instructions`. */
export function systemInstructions(system: unknown, redactor: Redactor): string | undefined {
  if (typeof system === 'string') return system ? redactor.json([{ type: 'text', content: system }]) : undefined;
  if (!Array.isArray(system)) return undefined;
  return redactor.json(system.map((b: { text?: string }) => ({ type: 'text', content: b.text ?? '' })));
}

/** A tool's input or result as the `gen_ai.tool.call.*` attributes hold it. */
export function toolContent(value: unknown, redactor: Redactor): string {
  return typeof value === 'string' ? redactor.text(value) : redactor.json(value ?? null);
}
