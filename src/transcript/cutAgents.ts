/**
 * Subagents a resumed session's last run cut off (a kill -9 while a child ran). resume.ts answers their Agent calls
 * as interrupted, as any cut tool, so that the history is valid for whoever resumes; these are what the resumed run
 * needs to take each child up where it stopped instead (run/childResume.ts): the child's start record, its records
 * (unwrapped: agentRecords.ts) and its end, if it ended before its call's result was written.
 */
import type { ContentBlock, MessageParam, ToolResultBlockParam } from '../core/messages.js';
import { INTERRUPTED_TOOL_RESULT } from '../core/prompts.js';
import { agentRecords } from './agentRecords.js';
import type { AgentEndRecord, AgentStartRecord, SessionRecord } from './records.js';

/** A subagent cut off while it ran: its Agent call's result in the history is a stand-in ("interrupted"). */
export interface CutAgent {
  /** The parent's Agent call. */
  toolUseId: string;
  start: AgentStartRecord;
  /** Its end, when it ended but the process died before the call's result was written. */
  end: AgentEndRecord | undefined;
  /** Its own records, as a transcript of its own would hold them (its own cut children nested in them). */
  records: SessionRecord[];
}

/** Whether `block` is resume.ts's stand-in answer. */
export const standIn = (block: ContentBlock): block is ToolResultBlockParam =>
  block.type === 'tool_result' && block.is_error === true && block.content === INTERRUPTED_TOOL_RESULT;

/**
 * The subagents to take up: the calls answered by the stand-in in the history's last message (a user message: no
 * model call has read the stand-in yet) whose child's start is recorded. A call the parent's model went on from is
 * settled, as it was answered.
 */
export function cutAgents(records: readonly SessionRecord[], messages: readonly MessageParam[]): CutAgent[] {
  const last = messages[messages.length - 1];
  if (last?.role !== 'user' || typeof last.content === 'string') return [];
  const ids = new Set(last.content.filter(standIn).map((block) => block.tool_use_id));
  if (ids.size === 0) return [];
  const starts = new Map<string, AgentStartRecord>();
  const ends = new Map<string, AgentEndRecord>();
  for (const record of records) {
    if (record.type === 'agent_start' && ids.has(record.toolUseId)) starts.set(record.agentId, record);
    if (record.type === 'agent_end' && ids.has(record.toolUseId)) ends.set(record.agentId, record);
  }
  return [...starts.values()].map((start) => ({ toolUseId: start.toolUseId, start, end: ends.get(start.agentId), records: agentRecords(records, start.agentId) }));
}
