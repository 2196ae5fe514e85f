/**
 * A durable session as a reader sees it while its run goes on, its subagents included: a child (children.ts) is an
 * invocation of its own whose records land in the session's only when it ends, so until then they are read from the
 * child's own state (`AgentChild/<session>/<agent id>`, through the admin API as the session's are) and added after
 * the session's records, wrapped as they will be (`agent` records under its `agent_start`). The calls a child waits on
 * for approval join the session's.
 */
import type { AgentStartRecord, SessionRecord } from '../transcript/records.js';
import { objectStates, recordsOf, type AdminTarget, type SessionView } from './admin.js';
import { APPROVALS, CHILD_SERVICE, type WaitingCall } from './protocol.js';

type States = Map<string, Map<string, unknown>>;

/** `records` (those of the object keyed `key`) with the records of its children still running after them, nested. */
function withLive(records: SessionRecord[], key: string, states: States): SessionRecord[] {
  const ended = new Set(records.flatMap((r) => (r.type === 'agent_end' ? [r.agentId] : [])));
  const running = records.filter((r): r is AgentStartRecord => r.type === 'agent_start' && !ended.has(r.agentId));
  const out = [...records];
  for (const start of running) {
    const childKey = `${key}/${start.agentId}`;
    const state = states.get(childKey);
    if (!state) continue;
    for (const { at, ...record } of withLive(recordsOf(state), childKey, states) as (SessionRecord & { at: string })[]) {
      out.push({ type: 'agent', at, toolUseId: start.toolUseId, agentId: start.agentId, record });
    }
  }
  return out;
}

/** `view` of session `sessionId` with its running children's records and waiting calls (a run that is not running: as it is). */
export async function withRunningChildren(target: AdminTarget, sessionId: string, view: SessionView): Promise<SessionView> {
  if (view.state !== 'running') return view;
  const states = await objectStates(target, CHILD_SERVICE, `${sessionId}/`);
  if (states.size === 0) return view;
  const waiting = [...states.values()].flatMap((state) => (state.get(APPROVALS) as WaitingCall[] | null | undefined) ?? []);
  return { ...view, records: withLive(view.records, sessionId, states), waiting: [...view.waiting, ...waiting] };
}
