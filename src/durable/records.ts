/**
 * A durable run's transcript: the same records a local session writes to its file (transcript/
 * records.ts), kept in the virtual object's state instead, so that any machine can read them back
 * while the run goes on or after it (`AgentSession/<id>/transcript`).
 *
 * State is written in batches (`batch:0`, `batch:1`, ... and `batches`, their count): each write
 * adds only the records since the last one, so the state grows with the run, not with its square.
 * Every record is stamped with the journal's clock: a replay writes exactly what the first
 * execution wrote.
 */
import type { RunEvent } from '../core/events.js';
import { draftOf, resultDraft, type Draft, type FinishedRun } from '../transcript/recorder.js';
import { TRANSCRIPT_VERSION, type SessionRecord } from '../transcript/records.js';
import type { JournalClock } from './journal.js';
import { BATCHES, batchKey } from './protocol.js';

/** What the records need of an object's state (a Restate `ObjectContext` has it). */
export interface RecordState {
  get<T>(name: string): PromiseLike<T | null>;
  set<T>(name: string, value: T): void;
}


export interface DurableRecorder {
  /** Adds a run event's record (if a transcript keeps it); writes the batch when it matters to a reader. */
  onEvent(event: RunEvent): void;
  prompt(text: string): void;
  finish(result: FinishedRun): void;
  /** Adds a subagent's records (children.ts), each wrapped as an `agent` record with its own time, as a local child's are. */
  agentRecords(toolUseId: string, agentId: string, records: readonly SessionRecord[]): void;
  /** Writes what is not written yet. */
  flush(): void;
  /** Every record this run added (a subagent's run answers with them). */
  added(): SessionRecord[];
}

/** Events after which the records are written at once (a reader sees the conversation, a tool running, a subagent started). */
const FLUSH_AFTER = new Set<RunEvent['type']>(['message', 'tool_start', 'retry', 'agent_start']);

/** Opens the session's records, with the session header first when the session is new. */
/** `header`: a subagent's records have none (its run is part of its session's). */
export async function openRecords(
  state: RecordState,
  session: { id: string; cwd: string; model: string },
  clock: JournalClock,
  header = true,
): Promise<DurableRecorder> {
  let batches = (await state.get<number>(BATCHES)) ?? 0;
  const pending: SessionRecord[] = [];
  const all: SessionRecord[] = [];
  const at = () => new Date(clock.now).toISOString();
  const push = (record: SessionRecord) => {
    pending.push(record);
    all.push(record);
  };
  const add = (draft: Draft) => push({ ...draft, at: at() } as SessionRecord);
  if (batches === 0 && header) {
    const createdAt = at();
    pending.push({ type: 'session', version: TRANSCRIPT_VERSION, id: session.id, cwd: session.cwd, createdAt, model: session.model });
  }
  const flush = () => {
    if (pending.length === 0) return;
    state.set(batchKey(batches), pending.splice(0));
    batches += 1;
    state.set(BATCHES, batches);
  };
  return {
    onEvent(event) {
      const draft = draftOf(event);
      if (!draft) return;
      add(draft);
      if (FLUSH_AFTER.has(event.type)) flush();
    },
    prompt(text) {
      add({ type: 'prompt', text });
      flush();
    },
    finish(result) {
      add(resultDraft(result));
      flush();
    },
    agentRecords(toolUseId, agentId, records) {
      for (const { at: when, ...record } of records as (SessionRecord & { at: string })[]) push({ type: 'agent', at: when, toolUseId, agentId, record });
      flush();
    },
    flush,
    added: () => [...all],
  };
}

/** Every record of the session, in order (for a shared handler: it sees what has been written). */
export async function readRecords(state: Pick<RecordState, 'get'>): Promise<SessionRecord[]> {
  const batches = (await state.get<number>(BATCHES)) ?? 0;
  const out: SessionRecord[] = [];
  for (let i = 0; i < batches; i++) out.push(...((await state.get<SessionRecord[]>(batchKey(i))) ?? []));
  return out;
}
