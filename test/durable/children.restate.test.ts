/**
 * A durable run's subagents, each its own invocation (issue 38), on a real restate-server: the two Agent calls of one
 * reply run their children in parallel (both children's first requests are in flight at once at the Messages API),
 * each child is an `AgentChild` invocation of Restate's, and its records land in the parent's session. The fault
 * matrix: with child a, child b or both held at a point (their first request, their tool running, their second
 * request), every worker holding a stream is killed with -9; the others finish the run. Then each child's command ran
 * exactly once (at most once when its tool was cut off: answered "interrupted", never run again), no request was sent
 * twice but those under way at the kill (the held ones among them), the parent's last request carries both answers,
 * every history is valid, and the run is the same on every replay (a replay that differs stops it for good: Restate's
 * journal mismatch, which the case of b held at its second request hit when the Agent call's output was not journalled).
 */
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTranscript } from '../../src/durable/ingress.js';
import { historyProblems } from '../../src/history/validate.js';
import { INTERRUPTED_BY_WORKER } from '../../src/durable/journal.js';
import type { RequestBody } from '../support/messagesServer.js';
import { adminQuery, AGENTS, bodiesOf, hasToolResult, scriptedCluster, senderOf, signatureOf, type Hold, type Point, type Script } from './childScript.js';
import { type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable subagent tests skipped: ${binary.problem}`);

/** The invocations of `service` whose key starts with `prefix`, as Restate's admin API lists them. */
const invocations = (cluster: Cluster, service: string, prefix: string) =>
  adminQuery<{ key: string; status: string }>(cluster, `SELECT target_service_key AS key, status FROM sys_invocation WHERE target_service_name = '${service}' AND target_service_key LIKE '${prefix}%'`);

describe.skipIf('problem' in binary)('subagents of a durable run', () => {
  let cluster: Cluster;
  let script: Script;
  let hold: Hold = () => false;

  beforeAll(async () => {
    ({ cluster, script } = await scriptedCluster((binary as { path: string }).path, 4, 200, (child, point) => hold(child, point)));
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
  });

  const log = (child: string) => readFileSync(join(cluster.dir, `log-${child}`), 'utf8');

  /** What every case holds: the parent's last request answers both calls with the children's answers; valid histories. */
  async function checkRun(name: string, sessionId: string) {
    const done = await cluster.resultOf(sessionId, 90_000);
    expect(done.context.exitReason).toBe('completed');
    expect(done.text).toBe('the loggers are done');
    const bodies = bodiesOf(cluster, name);
    const last = bodies.filter((b) => senderOf(b) === `parent ${name}`).at(-1) as RequestBody;
    expect(hasToolResult(last)).toBe(true);
    const answers = (last.messages.at(-1)?.content as { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }[]).filter((b) => b.type === 'tool_result');
    expect(answers.map((a) => [a.tool_use_id, a.is_error ?? false])).toEqual([[`toolu_agent_${name}_a`, false], [`toolu_agent_${name}_b`, false]]);
    for (const [i, child] of ['a', 'b'].entries()) expect(JSON.stringify(answers[i]?.content)).toContain(`appended x to log-${name}-${child}`);
    for (const body of bodies) expect(historyProblems(body.messages)).toEqual([]);
    // The session's records hold each child once, as a local transcript does.
    const records = await runTranscript(cluster.restate.ingress, sessionId);
    expect(records.filter((r) => r.type === 'agent_start').map((r) => (r as { toolUseId: string }).toolUseId)).toEqual([`toolu_agent_${name}_a`, `toolu_agent_${name}_b`]);
    expect(records.filter((r) => r.type === 'agent_end').map((r) => (r as { state: string }).state)).toEqual(['done', 'done']);
    const childToolStarts = records.filter((r) => r.type === 'agent' && (r as { record: { type: string } }).record.type === 'tool_start');
    expect(childToolStarts, 'one tool_start in each child').toHaveLength(2);
    // Each child ran as an AgentChild invocation of its own, keyed by the session and its agent id.
    expect((await invocations(cluster, 'AgentChild', `${sessionId}/`)).map((i) => i.status)).toEqual(['completed', 'completed']);
    return bodies;
  }

  it('runs the two children of one reply at once, each its own invocation', async () => {
    // Each child's first request is answered only once both are in: one after the other, they never would be.
    hold = (_child, point) => (point === 'first request' ? script.reached(['p-a', 'p-b'], point) : false);
    const sessionId = await cluster.submit(['-p', 'case p: a b', '--agents', JSON.stringify(AGENTS), '--allowedTools', 'Bash']);
    await script.reached(['p-a', 'p-b'], 'first request');
    const bodies = await checkRun('p', sessionId);
    expect(new Set(bodies.map(signatureOf)).size, 'no request sent twice').toBe(bodies.length);
    expect(log('p-a')).toBe('x\n');
    expect(log('p-b')).toBe('x\n');
  }, 120_000);

  const POINTS: Point[] = ['first request', 'tool', 'second request'];
  const CASES = POINTS.flatMap((point, i) => (['a', 'b', 'a b'] as const).map((held, j) => [point, held, `k${i}${j}`] as const));
  it.each(CASES)('loses nothing when the workers die with the children held at their %s: %s', async (point, held, name) => {
    const ids = held.split(' ').map((c) => `${name}-${c}`);
    hold = (child, at) => ids.includes(child) && at === point;
    const sessionId = await cluster.submit(['-p', `case ${name}: a b`, '--agents', JSON.stringify(AGENTS), '--allowedTools', 'Bash']);
    if (point === 'tool') await until('the tools to start', () => (ids.every((id) => existsSync(join(cluster.dir, `started-${id}`))) ? true : undefined), 60_000);
    else await script.reached(ids, point);
    await cluster.killRunning();
    // When the workers were dead: a request received before may have been under way (a child not held may be just
    // starting as the kill goes out, k00's b say), one received after came from a worker that replayed.
    const killedAt = performance.now();
    while (cluster.workers.filter((w) => w.alive()).length < 4) await cluster.addWorker();

    const bodies = await checkRun(name, sessionId);
    // A child's command ran exactly once, or (a tool cut off while it ran: answered "interrupted") at most once.
    for (const child of [`${name}-a`, `${name}-b`]) {
      const interrupted = bodies.some((b) => senderOf(b) === child && JSON.stringify(b.messages.at(-1)).includes(INTERRUPTED_BY_WORKER));
      const ran = existsSync(join(cluster.dir, `log-${child}`)) ? log(child) : '';
      if (interrupted) expect(['', 'x\n'], `${child}'s command ran at most once`).toContain(ran);
      else expect(ran, `${child}'s command ran exactly once`).toBe('x\n');
      if (ids.includes(child) && point === 'tool') expect([interrupted, ran], `${child}'s tool cut off, not run again`).toEqual([true, 'x\n']);
    }
    // No request sent twice but one cut off by the kill (under way then: the held ones, asked again, at least).
    const requests = cluster.model.requests.filter((r) => bodies.includes(r.body as RequestBody));
    const copies = new Map<string, number[]>();
    for (const r of requests) copies.set(signatureOf(r.body as RequestBody), [...(copies.get(signatureOf(r.body as RequestBody)) ?? []), r.receivedAt]);
    const twice = [...copies].filter(([, at]) => at.length > 1);
    for (const [signature, at] of twice) expect([signature, at.length, (at[0] as number) < killedAt]).toEqual([signature, 2, true]);
    const cut = point === 'first request' ? ids.map((id) => `${id} #1`) : point === 'second request' ? ids.map((id) => `${id} #3`) : [];
    for (const signature of cut) expect(copies.get(signature), `${signature} asked again`).toHaveLength(2);
  }, 180_000);
});
