/**
 * Subagents a resumed session's last run cut off (a kill -9 while a child ran, or before it started). resume.ts answers
 * their Agent calls as interrupted, as any cut tool, so that the history is valid for whoever resumes; these are what
 * the resumed run needs to take each child up where it stopped instead (run/childResume.ts): the child's start record,
 * its records (unwrapped: agentRecords.ts) and its end, if it ended before its call's result was written. An Agent call
 * cut before its child started (no start record: nothing of the child ran, no request, no tool) has none of them: the
 * resumed run runs the call.
 */
import type { ContentBlock, MessageParam, ToolResultBlockParam } from '../core/messages.js';
import { INTERRUPTED_TOOL_RESULT } from '../core/prompts.js';
import { AGENT_TOOL_NAME } from '../tools/agent/agentTool.js';
import { agentRecords } from './agentRecords.js';
import type { AgentEndRecord, AgentStartRecord, SessionRecord } from './records.js';

/** A subagent cut off while it ran, or before it started: its Agent call's result in the history is a stand-in ("interrupted"). */
export interface CutAgent {
  /** The parent's Agent call. */
  toolUseId: string;
  /** Its start; undefined when the call was cut before its child started (the resumed run runs the call). */
  start: AgentStartRecord | undefined;
  /** Its end, when it ended but the process died before the call's result was written. */
  end: AgentEndRecord | undefined;
  /** Its own records, as a transcript of its own would hold them (its own cut children nested in them). */
  records: SessionRecord[];
}

/** Whether `block` is resume.ts's stand-in answer. */
export const standIn = (block: ContentBlock): block is ToolResultBlockParam =>
  block.type === 'tool_result' && block.is_error === true && block.content === INTERRUPTED_TOOL_RESULT;

/** The ids of the Agent calls of the reply `messages` ends with before its last message. */
function agentCallsBefore(messages: readonly MessageParam[]): Set<string> {
  const reply = messages[messages.length - 2];
  const blocks = reply?.role === 'assistant' && typeof reply.content !== 'string' ? (reply.content as ContentBlock[]) : [];
  return new Set(blocks.flatMap((b) => (b.type === 'tool_use' && b.name === AGENT_TOOL_NAME ? [b.id] : [])));
}

/**
 * The subagents to take up: the Agent calls answered by the stand-in in the history's last message (a user message:
 * no model call has read the stand-in yet), in the reply's order, each with its child's records when it started. A
 * call the parent's model went on from is settled, as it was answered.
 */
export function cutAgents(records: readonly SessionRecord[], messages: readonly MessageParam[]): CutAgent[] {
  const last = messages[messages.length - 1];
  if (last?.role !== 'user' || typeof last.content === 'string') return [];
  const calls = agentCallsBefore(messages);
  const ids = last.content.filter(standIn).map((block) => block.tool_use_id);
  if (ids.length === 0) return [];
  const starts = new Map<string, AgentStartRecord>();
  const ends = new Map<string, AgentEndRecord>();
  for (const record of records) {
    if (record.type === 'agent_start' && ids.includes(record.toolUseId)) starts.set(record.toolUseId, record);
    if (record.type === 'agent_end' && ids.includes(record.toolUseId)) ends.set(record.toolUseId, record);
  }
  return ids.flatMap((toolUseId): CutAgent[] => {
    const start = starts.get(toolUseId);
    if (!start) return calls.has(toolUseId) ? [{ toolUseId, start: undefined, end: undefined, records: [] }] : [];
    return [{ toolUseId, start, end: ends.get(toolUseId), records: agentRecords(records, start.agentId) }];
  });
}
