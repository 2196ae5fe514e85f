/**
 * A subagent's run in its parent's transcript (records.ts: `agent_start`, `agent`, `agent_end`): its records unwrapped,
 * as a transcript of its own would hold them, so that what reads a run (resume.ts's restoreConversation, the viewer)
 * reads the child's too.
 */
import type { AgentStartRecord, SessionRecord } from './records.js';

/** The subagents a transcript's run started, in order. */
export function agentStarts(records: readonly SessionRecord[]): AgentStartRecord[] {
  return records.filter((record): record is AgentStartRecord => record.type === 'agent_start');
}

/** The records of subagent `agentId`, each with its wrapper's `at` (a nested subagent's stay wrapped, as its own). */
export function agentRecords(records: readonly SessionRecord[], agentId: string): SessionRecord[] {
  return records.flatMap((record) => (record.type === 'agent' && record.agentId === agentId ? [{ ...record.record, at: record.at } as unknown as SessionRecord] : []));
}
