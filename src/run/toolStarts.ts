/**
 * What a `tool_start` says of its call beyond the tool_use block: the tool's public name and the line the tool's
 * contract shows the call with (core/tool.ts `toolCallLine`). The transcript keeps them, so a reader without the Tool
 * objects (the viewer) shows each call as the terminal does: `$ ls -A`, `Read src/a.ts`, an MCP tool's JSON.
 */
import type { RunEvent } from '../core/events.js';
import type { Effect, StepGate } from './gate.js';
import { publicToolName, toolCallLine, toolLookup, type Tool, type ToolLookup } from '../core/tool.js';

/** `event` with the public name and the display line of its tool, if it is a `tool_start` without them. */
export function describedEvent(event: RunEvent, lookup: ToolLookup): RunEvent {
  if (event.type !== 'tool_start' || event.display !== undefined) return event;
  const { name, input } = event.block;
  const tool = lookup(name);
  return { ...event, publicName: tool ? publicToolName(tool) : name, display: toolCallLine(tool, name, input) };
}

/** describedEvent over the run's `tools`. */
export function describedEvents(tools: readonly Tool[]): (event: RunEvent) => RunEvent {
  const lookup = toolLookup(tools);
  return (event) => describedEvent(event, lookup);
}

/** `gate` shown each call as its tool shows it: a tool_start with its display line, a reply with its tool_use blocks' (`calls`). */
export function describingGate(gate: StepGate, tools: readonly Tool[]): StepGate {
  const lookup = toolLookup(tools);
  const described = (effect: Effect): Effect => {
    if (effect.type === 'tool_start') return describedEvent(effect, lookup) as Effect;
    if (effect.type !== 'reply') return effect;
    const calls = effect.content.flatMap((b) => (b.type === 'tool_use' ? [toolCallLine(lookup(b.name), b.name, b.input)] : []));
    return { ...effect, calls };
  };
  return { wait: (effect, signal) => gate.wait(described(effect), signal) };
}
