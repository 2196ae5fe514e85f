/**
 * The subagents of a run, each with a timeline of its own (issue 38): a child's records (`agent` records in its
 * parent's transcript, transcript/agentRecords.ts) read as a transcript of its own would be, so the page steps into a
 * child from the parent's Agent call and shows its steps, requests and messages as it shows the parent's. A child's
 * own children are its `agents` in turn.
 */
import type { MachineGraph } from '../../diagram/graph.js';
import { agentRecords, agentStarts } from '../../transcript/agentRecords.js';
import type { SessionRecord } from '../../transcript/records.js';
import type { DamagedLine } from '../../transcript/store.js';
import { buildTimeline } from './build.js';
import type { AnyRecord, Timeline } from './shape.js';

/** A run's timeline with the timelines of the subagents it started (`agents`, in the order they started). */
export function runTimeline(records: readonly AnyRecord[], graph: MachineGraph, problems: string[] = [], damaged: readonly DamagedLine[] = []): Timeline {
  const timeline = buildTimeline(records, graph, problems, damaged);
  const own = records as readonly SessionRecord[];
  const starts = agentStarts(own);
  if (!starts.length) return timeline;
  const agents = starts.map((start) => {
    const end = own.find((r) => r.type === 'agent_end' && r.agentId === start.agentId);
    return {
      toolUseId: start.toolUseId,
      agentId: start.agentId,
      agentType: start.agentType,
      description: start.description,
      state: end?.type === 'agent_end' ? end.state : null,
      timeline: runTimeline(agentRecords(own, start.agentId), graph),
    };
  });
  return { ...timeline, agents };
}
