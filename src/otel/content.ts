/**
 * The run's content in the shapes the GenAI conventions give it (`gen_ai.input.messages`, `gen_ai.output.messages`,
 * `gen_ai.system_instructions`): messages of parts, each part a `text`, `tool_call`, `tool_call_response` or
 * `reasoning`. Images and documents are named by their type, without their data. Every string goes through the run's
 * redactor (core/redact.ts, the one every text agentloop writes goes through) before it is serialised. Pure.
 */
import type { MessageParam } from '../core/messages.js';
import type { Redactor } from '../core/redact.js';

type Part = Record<string, unknown>;

function textOfResult(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : `[${b.type ?? 'block'}]`)).join('');
}

function partOf(block: Record<string, unknown>, redactor: Redactor): Part {
  switch (block.type) {
    case 'text':
      return { type: 'text', content: redactor.text(String(block.text ?? '')) };
    case 'thinking':
      return { type: 'reasoning', content: redactor.text(String(block.thinking ?? '')) };
    case 'tool_use':
      return { type: 'tool_call', id: block.id, name: block.name, arguments: redactor.value(block.input ?? {}) };
    case 'tool_result':
      return { type: 'tool_call_response', id: block.tool_use_id, response: redactor.text(textOfResult(block.content)) };
    default:
      return { type: String(block.type ?? 'unknown') };
  }
}

function partsOf(content: MessageParam['content'], redactor: Redactor): Part[] {
  if (typeof content === 'string') return [{ type: 'text', content: redactor.text(content) }];
  return content.map((block) => partOf(block as unknown as Record<string, unknown>, redactor));
}

/** `gen_ai.input.messages`: the messages of one request, as JSON. */
export function inputMessages(messages: readonly MessageParam[], redactor: Redactor): string {
  return JSON.stringify(messages.map((m) => ({ role: m.role, parts: partsOf(m.content, redactor) })));
}

/** `gen_ai.output.messages`: the reply, with its finish reason. */
export function outputMessages(message: MessageParam, finishReason: string | null, redactor: Redactor): string {
  return JSON.stringify([{ role: 'assistant', parts: partsOf(message.content, redactor), finish_reason: finishReason ?? 'unknown' }]);
}

/** `gen_ai.system_instructions`. */
export function systemInstructions(system: unknown, redactor: Redactor): string | undefined {
  if (typeof system === 'string') return system ? JSON.stringify([{ type: 'text', content: redactor.text(system) }]) : undefined;
  if (!Array.isArray(system)) return undefined;
  return JSON.stringify(system.map((b: { text?: string }) => ({ type: 'text', content: redactor.text(b.text ?? '') })));
}

/** A tool's input or result as the `gen_ai.tool.call.*` attributes hold it. */
export function toolContent(value: unknown, redactor: Redactor): string {
  return typeof value === 'string' ? redactor.text(value) : redactor.json(value ?? null);
}
