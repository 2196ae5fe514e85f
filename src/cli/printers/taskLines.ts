/**
 * A subagent's stream-json lines, as Claude Code 2.1.197 writes them (recorded: test/cli/sdk/claudeCode.json, scenario
 * `agents`): `system/task_started` when the Agent call starts its child, the child's prompt as a `user` line, before
 * each of its replies that calls tools a `system/task_progress` line and the reply's `assistant` lines, its tool
 * results as `user` lines (each of these with `parent_tool_use_id` naming the Agent call, and `subagent_type` and
 * `task_description`; the progress line's `description` is ./taskActivity.ts's), then `system/task_updated` and `system/task_notification` when it ends. Its last reply (its
 * answer) is no line of its own: it is the Agent call's result, on the parent's `user` line. Its raw stream events
 * are not written.
 */
import { randomUUID } from 'node:crypto';
import type { RunEvent, SubagentEvent } from '../../core/events.js';
import type { ContentBlock } from '../../core/messages.js';
import type { Usage } from '../../core/usage.js';
import { publicNameOf, type ToolLookup } from '../../core/tool.js';
import { activityOf } from './taskActivity.js';

type Out = (line: object) => void;
type Printer = (event: RunEvent) => void;

interface Task {
  print: Printer;
  toolUseId: string;
  description: string;
  started: number;
  toolUses: number;
  tokens: number;
  reply: ContentBlock[];
}

const tokensOf = (usage: Usage) => usage.input_tokens + usage.output_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;

/**
 * The lines of the subagent events of one run (`printerOf(out)`: a run's printer writing through `out`, for a child's
 * own events: ./streamJson.ts).
 */
export function taskLines(sessionId: string, out: Out, printerOf: (out: Out) => Printer, place: { tools: ToolLookup; cwd: string }): (event: SubagentEvent) => void {
  const tasks = new Map<string, Task>();
  const system = (subtype: string, fields: object) => out({ type: 'system', subtype, ...fields, uuid: randomUUID(), session_id: sessionId });
  /** A child's task: `task_started`, and its prompt's line unless it is taken up after a resume (the prompt was written then). */
  const begin = (event: Extract<SubagentEvent, { type: 'agent_start' | 'agent_resume' }>) => {
    const named = { subagent_type: event.agentType, task_description: event.description };
    const childOut: Out = (line) => out(childLine(line, event.toolUseId, named));
    tasks.set(event.agentId, { print: printerOf(childOut), toolUseId: event.toolUseId, description: event.description, started: Date.now(), toolUses: 0, tokens: 0, reply: [] });
    system('task_started', { task_id: event.agentId, tool_use_id: event.toolUseId, description: event.description, subagent_type: event.agentType, task_type: 'local_agent', prompt: event.prompt });
    if (event.type === 'agent_start') childOut({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: event.prompt }] }, parent_tool_use_id: null, session_id: sessionId, uuid: randomUUID(), timestamp: new Date().toISOString() });
  };
  return (event) => {
    if (event.type === 'agent_start' || event.type === 'agent_resume') {
      if (event.type === 'agent_start' || event.why === undefined) begin(event);
      return;
    }
    const task = tasks.get(event.agentId);
    if (!task) return;
    if (event.type === 'agent_end') {
      tasks.delete(event.agentId);
      const status = event.state === 'done' ? 'completed' : event.state === 'aborted' ? 'killed' : 'failed';
      system('task_updated', { task_id: event.agentId, patch: { status, end_time: Date.now() } });
      const usage = { total_tokens: tokensOf(event.usage), tool_uses: event.toolUses, duration_ms: event.durationMs };
      system('task_notification', { task_id: event.agentId, tool_use_id: task.toolUseId, status, output_file: '', summary: task.description, usage });
      return;
    }
    const inner = event.event;
    if (inner.type === 'stream_event') return;
    if (inner.type === 'message' && inner.origin === 'model') task.reply = Array.isArray(inner.message.content) ? (inner.message.content as ContentBlock[]) : [];
    if (inner.type === 'reply') {
      task.tokens = tokensOf(inner.total);
      const calls = task.reply.filter((block) => block.type === 'tool_use');
      if (calls.length === 0) return; // the answer: the Agent call's result says it
      task.toolUses += calls.length;
      const usage = { total_tokens: task.tokens, tool_uses: task.toolUses, duration_ms: Date.now() - task.started };
      const last = calls.at(-1);
      const name = last?.type === 'tool_use' ? publicNameOf(place.tools, last.name) : '';
      const description = activityOf(last, name, { cwd: place.cwd, taskDescription: task.description });
      system('task_progress', { task_id: event.agentId, tool_use_id: task.toolUseId, description, subagent_type: event.agentType, usage, last_tool_name: name });
    }
    task.print(inner);
  };
}

/** A child's line: its `parent_tool_use_id` the Agent call, its agent named; a tool result without `tool_use_result`. */
function childLine(line: object, toolUseId: string, named: { subagent_type: string; task_description: string }): object {
  const l = line as { type?: string };
  if (l.type !== 'assistant' && l.type !== 'user') return line;
  const { tool_use_result: _data, ...rest } = line as Record<string, unknown>;
  return { ...rest, parent_tool_use_id: toolUseId, ...named };
}

/**
 * A subagent started while its parent's reply streams (the Agent tool is concurrency-safe: it starts as its tool_use
 * is complete) has its lines held until the parent's assistant line of that tool_use is written, as Claude Code
 * writes each block's line as it completes: `shown(id)` after a block's line, `flush()` once the reply is done.
 */
export function heldUntilShown(print: (event: SubagentEvent) => void) {
  const held = new Map<string, SubagentEvent[]>();
  const release = (id: string) => {
    const events = held.get(id) ?? [];
    held.delete(id);
    for (const event of events) print(event);
  };
  return {
    print,
    hold: (event: SubagentEvent) => void held.set(event.toolUseId, [...(held.get(event.toolUseId) ?? []), event]),
    shown: release,
    flush: () => [...held.keys()].forEach(release),
  };
}
