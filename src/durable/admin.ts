/**
 * Reading a durable session without a worker: the virtual object's state and its pending runs, as
 * the Restate server itself holds them, through its admin API's SQL introspection (`POST /query`
 * on the `state` and `sys_invocation` tables). Nothing is invoked, so a read never waits for a
 * worker and leaves nothing behind in Restate; it gives up after `timeoutMs`.
 */
import type { SessionRecord } from '../transcript/records.js';
import { RestateCallError, restateCall } from './http.js';
import { APPROVALS, BATCHES, batchKey, type DurableRunResult, type WaitingCall } from './protocol.js';

export { ADMIN_PORT, adminUrlOf } from './addresses.js';

/** A run of the session that has not finished, as Restate reports it. */
export interface PendingRun {
  invocationId: string;
  /** Restate's status: `pending`, `scheduled`, `ready`, `running`, `backing-off`, `suspended`, `paused`. */
  status: string;
  /** Attempts that failed (their worker died, or none answered). */
  retryCount: number;
  lastFailure?: string;
}

export type SessionView =
  | { state: 'unknown' }
  /** A run of the session has not finished (queued, running, waiting for a worker or for an approval, or paused). */
  | { state: 'running'; run: PendingRun; records: SessionRecord[]; waiting: WaitingCall[] }
  | { state: 'done'; result: DurableRunResult; records: SessionRecord[] }
  /** The session has records but neither a result nor a pending run (its run was killed in Restate). */
  | { state: 'ended'; records: SessionRecord[] };

export interface AdminTarget {
  admin: string;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

const sqlString = (value: string) => `'${value.replaceAll("'", "''")}'`;

async function query<Row>(target: AdminTarget, sql: string): Promise<Row[]> {
  const answer = await restateCall<{ rows?: Row[] }>(new URL('/query', target.admin), {
    method: 'POST',
    body: { query: sql },
    headers: { accept: 'application/json' },
    timeoutMs: target.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  }).catch((error: unknown) => {
    if (error instanceof RestateCallError && error.status === undefined) {
      throw new RestateCallError(`${error.message}: its admin API, where agentloop reads runs (--admin sets its URL)`);
    }
    throw error;
  });
  return answer?.rows ?? [];
}

/** The object's state, by key, parsed (the SDK keeps it as JSON). */
async function objectState(target: AdminTarget, service: string, key: string): Promise<Map<string, unknown>> {
  const rows = await query<{ key: string; value_utf8: string | null }>(
    target,
    `SELECT key, value_utf8 FROM state WHERE service_name = ${sqlString(service)} AND service_key = ${sqlString(key)}`,
  );
  return new Map(rows.map((row) => [row.key, row.value_utf8 === null ? null : (JSON.parse(row.value_utf8) as unknown)]));
}

/** The state of every object of `service` whose key starts with `prefix`, by key, each parsed. */
export async function objectStates(target: AdminTarget, service: string, prefix: string): Promise<Map<string, Map<string, unknown>>> {
  const rows = await query<{ service_key: string; key: string; value_utf8: string | null }>(
    target,
    `SELECT service_key, key, value_utf8 FROM state WHERE service_name = ${sqlString(service)} AND service_key LIKE ${sqlString(`${prefix}%`)}`,
  );
  const states = new Map<string, Map<string, unknown>>();
  for (const row of rows.filter((r) => r.service_key.startsWith(prefix))) {
    const state = states.get(row.service_key) ?? new Map<string, unknown>();
    state.set(row.key, row.value_utf8 === null ? null : (JSON.parse(row.value_utf8) as unknown));
    states.set(row.service_key, state);
  }
  return states;
}

async function pendingRuns(target: AdminTarget, service: string, key: string): Promise<PendingRun[]> {
  const rows = await query<{ id: string; status: string; retry_count: number | null; last_failure: string | null }>(
    target,
    `SELECT id, status, retry_count, last_failure FROM sys_invocation WHERE target_service_name = ${sqlString(service)} ` +
      `AND target_service_key = ${sqlString(key)} AND target_handler_name = 'run' AND status <> 'completed' ORDER BY created_at`,
  );
  return rows.map((row) => ({
    invocationId: row.id,
    status: row.status,
    retryCount: row.retry_count ?? 0,
    ...(row.last_failure ? { lastFailure: row.last_failure } : {}),
  }));
}

/** The records an object's state holds (records.ts writes them in batches). */
export function recordsOf(state: Map<string, unknown>): SessionRecord[] {
  const batches = (state.get(BATCHES) as number | undefined) ?? 0;
  const out: SessionRecord[] = [];
  for (let i = 0; i < batches; i++) out.push(...((state.get(batchKey(i)) as SessionRecord[] | undefined) ?? []));
  return out;
}

/**
 * Where session `sessionId` of service `service` stands. The pending runs are read before the state: a run writes its
 * result to the state before it completes, so a run that completed between the two reads is found done (read the
 * other way round, or at once, it could look neither pending nor done: "ended").
 */
export async function readSession(target: AdminTarget, service: string, sessionId: string): Promise<SessionView> {
  const pending = await pendingRuns(target, service, sessionId);
  const state = await objectState(target, service, sessionId);
  const records = recordsOf(state);
  const [run] = pending;
  if (run) return { state: 'running', run, records, waiting: (state.get(APPROVALS) as WaitingCall[] | null | undefined) ?? [] };
  const result = state.get('result') as DurableRunResult | undefined;
  if (state.get('status') === 'done' && result) return { state: 'done', result, records };
  return records.length > 0 ? { state: 'ended', records } : { state: 'unknown' };
}

/**
 * The request invocation `invocationId` was started with (the body of its `run/send`), from its journal's first entry;
 * undefined when Restate no longer keeps it (the journal outlives the idempotency key: both are kept a day).
 */
export async function submittedRequest(target: AdminTarget, invocationId: string): Promise<unknown> {
  const rows = await query<{ entry_json: string | null }>(target, `SELECT entry_json FROM sys_journal WHERE id = ${sqlString(invocationId)} AND index = 0`);
  const entry = rows[0]?.entry_json ? (JSON.parse(rows[0].entry_json) as { Command?: { Input?: { payload?: number[] } } }) : undefined;
  const payload = entry?.Command?.Input?.payload;
  if (!Array.isArray(payload)) return undefined;
  try {
    return JSON.parse(Buffer.from(payload).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** A call waiting for an answer, with its session. */
export interface WaitingApproval extends WaitingCall {
  sessionId: string;
}

/**
 * The calls of every session of `service` that wait for someone to allow or deny them, the oldest first: the
 * sessions' own, and their subagents' (`children`, keyed `<session>/<agent id>`: durable/children.ts), listed under
 * their session.
 */
export async function waitingCalls(target: AdminTarget, service: string, children?: string): Promise<WaitingApproval[]> {
  const services = [service, ...(children ? [children] : [])].map(sqlString).join(', ');
  const rows = await query<{ service_key: string; value_utf8: string | null }>(
    target,
    `SELECT service_key, value_utf8 FROM state WHERE service_name IN (${services}) AND key = ${sqlString(APPROVALS)}`,
  );
  const sessionOf = (key: string) => key.split('/')[0] as string;
  const calls = rows.flatMap((row) => ((row.value_utf8 ? JSON.parse(row.value_utf8) : []) as WaitingCall[]).map((call) => ({ ...call, sessionId: sessionOf(row.service_key) })));
  return calls.sort((a, b) => a.since.localeCompare(b.since));
}
