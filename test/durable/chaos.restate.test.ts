/**
 * Chaos, bounded for CI (issue 25): 30 runs over three workers behind the balancer, each run two
 * writing tools (a quoted read-only one between them) and an answer. The faults come at moments
 * chosen by events, not by the clock: once 10 writing tools have started, kill -9 of the worker
 * holding the most runs; once 25 have, kill -9 of the restate-server and a restart on the same
 * data; once 40 have, kill -9 of the busiest worker again (a fresh worker joins after each kill).
 * Then: every run done within 60 s of the last fault, no writing tool started twice, and every
 * request the model server got held a valid history.
 *
 * And runs that wait for approval (issue 43): 8 runs in the default mode, each a writing command asked about; while
 * all wait, kill -9 of a worker and of the server; then half approved, half denied, and at once kill -9 of the worker
 * running the most (the approved commands run 2 s). Then: 0 calls run unapproved, none run twice, none asked again;
 * as root and as nobody. */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSession, waitingCalls } from '../../src/durable/admin.js';
import { approveCall, denyCall } from '../../src/durable/approvalsClient.js';
import { submitRun } from '../../src/durable/ingress.js';
import { INTERRUPTED_BY_WORKER } from '../../src/durable/journal.js';
import { SERVICE_NAME } from '../../src/durable/protocol.js';
import { historyProblems } from '../../src/history/validate.js';
import { bashUse, lastToolResults, resultText, firstPrompt } from '../support/agentServer.js';
import type { Step, StepFn } from '../support/messagesServer.js';
import { startCluster, type Cluster, type WorkerProcess, until } from './cluster.js';
import { restateBinary } from './restateServer.js';
import { testUsers } from '../support/users.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable chaos test skipped: ${binary.problem}`);

const RUNS = 30;
const WRITES_PER_RUN = 2;

/**
 * `chaos N`: a writing tool (its id appended to started.log, then 2 s of sleep), a quoted read-only
 * one (`grep -c "ID" started.log`: whether it is read-only is the shell parser's answer, journalled),
 * the second writing tool, then an answer that quotes what the last tool gave. The same request gets
 * the same reply, as a replay that asks again needs.
 */
function agent(log: string): StepFn {
  return (body): Step => {
    const run = /^chaos (\d+)$/.exec(firstPrompt(body))?.[1] ?? '?';
    const turn = body.messages.filter((m) => m.role === 'assistant').length + 1;
    const write = (n: number) => `echo c${run}_${n} >> ${log}; sleep 2; echo wrote c${run}_${n}`;
    const command = [write(1), `grep -c "c${run}_1" ${log}`, write(2)][turn - 1];
    if (command === undefined) {
      const results = lastToolResults(body).map(resultText).join(' | ');
      return { content: [{ type: 'text', text: `done ${run}: ${results}` }], stop_reason: 'end_turn' };
    }
    return { content: [bashUse(`toolu_c${run}_t${turn}`, command)], stop_reason: 'tool_use' };
  };
}

describe.skipIf('problem' in binary)('chaos: 30 runs, three workers, kill -9 of workers and of the server', () => {
  let cluster: Cluster;
  let log: string;

  beforeAll(async () => {
    cluster = await startCluster((binary as { path: string }).path, { pings: true });
    log = join(cluster.dir, 'started.log');
    appendFileSync(log, '');
    for (let i = 0; i < RUNS * 10; i++) cluster.model.enqueue(agent(log));
    for (let i = 0; i < 3; i++) await cluster.addWorker();
    await cluster.register();
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
  });

  it('ends every run within 60 s of the last fault, no writing tool twice, every request valid', async () => {
    const started = () => readFileSync(log, 'utf8').split('\n').filter((l) => l !== '');
    const ids = Array.from({ length: RUNS }, (_, i) => `chaos-${i}-${Date.now().toString(36)}`);
    await Promise.all(ids.map((id, i) => submitRun(cluster.restate.ingress, id, { prompt: `chaos ${i}`, allowedTools: ['Bash'] }, id)));

    /** kill -9 of the worker with the most runs open through the balancer; a fresh one takes its place. */
    let cut = 0;
    const killBusiest = async () => {
      const live = cluster.workers.filter((w) => w.alive());
      const open = (w: WorkerProcess) => cluster.balancer.open.get(w.url) ?? 0;
      const busiest = live.reduce((a, b) => (open(b) > open(a) ? b : a));
      cut += open(busiest);
      await busiest.kill('SIGKILL');
      await cluster.addWorker();
    };
    const whenStarted = (n: number) => until(`${n} writing tools to start`, () => (started().length >= n ? true : undefined), 120_000);

    await whenStarted(10);
    await killBusiest();
    await whenStarted(25);
    await cluster.restate.restart('SIGKILL');
    await whenStarted(40);
    await killBusiest();
    const lastFault = Date.now();

    const results = new Map<string, { text: string; exitReason: string | null; at: number }>();
    const ended: string[] = [];
    await until(
      'every run to end',
      async () => {
        for (const id of ids.filter((i) => !results.has(i))) {
          const view = await readSession({ admin: cluster.restate.admin }, SERVICE_NAME, id).catch(() => undefined);
          if (view?.state === 'ended') ended.push(id); // read as neither pending nor done: a read racing the run's end
          if (view?.state === 'done') results.set(id, { text: view.result.text, exitReason: view.result.context.exitReason, at: Date.now() });
        }
        return results.size === RUNS ? true : undefined;
      },
      90_000,
      500,
    );
    const slowest = Math.max(...[...results.values()].map((r) => r.at - lastFault));
    const interrupted = [...results.values()].filter((r) => r.text.includes(INTERRUPTED_BY_WORKER)).length;
    console.info(`chaos: ${RUNS} runs, ${cut} attempts cut by kill -9, ${interrupted} last tools interrupted, the last run ended ${slowest} ms after the last fault`);
    expect(slowest, `the last run ended ${slowest} ms after the last fault`).toBeLessThan(60_000);
    expect(cut, 'the killed workers held runs').toBeGreaterThan(0);
    expect(ended, 'runs read as ended without a result').toEqual([]);

    // Each run went through its tools and answered; an interrupted tool answered as such, not run again.
    ids.forEach((id, i) => {
      const result = results.get(id);
      expect(result?.exitReason).toBe('completed');
      const parts = result?.text.replace(`done ${i}: `, '').split(' | ') ?? [];
      expect(parts.every((p) => p === `wrote c${i}_${WRITES_PER_RUN}` || p === INTERRUPTED_BY_WORKER), result?.text).toBe(true);
    });
    const lines = started();
    // (A tool killed before its first line wrote nothing.)
    expect(lines.length).toBeLessThanOrEqual(RUNS * WRITES_PER_RUN);
    expect(new Set(lines).size, 'no writing tool started twice').toBe(lines.length);
    expect(cluster.model.violations).toEqual([]);
    for (const request of cluster.model.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
  }, 300_000);
});

const WAITING_RUNS = 8;

/** `approve N`: one writing command (asked about in the default mode), 2 s long, then an answer quoting its result. */
function askingAgent(log: string): StepFn {
  return (body): Step => {
    const run = /^approve (\d+)$/.exec(firstPrompt(body))?.[1] ?? '?';
    if (lastToolResults(body).length > 0) return { content: [{ type: 'text', text: `done ${run}: ${lastToolResults(body).map(resultText).join(' | ')}` }], stop_reason: 'end_turn' };
    return { content: [bashUse(`toolu_w${run}`, `echo w${run} >> ${log}; sleep 2`)], stop_reason: 'tool_use' };
  };
}

// A security claim (no call runs unapproved): as root and as nobody (the workers and their commands run as the user).
describe.skipIf('problem' in binary).each(testUsers())('chaos: runs waiting for approval, kill -9 of workers and of the server (as $name)', (user) => {
  let cluster: Cluster;
  let log: string;

  beforeAll(async () => {
    if (user.skip) return;
    cluster = await startCluster((binary as { path: string }).path, { pings: true, user });
    log = join(cluster.dir, 'effects.log');
    appendFileSync(log, '');
    if (user.owner) execFileSync('chown', [user.owner, log]);
    for (let i = 0; i < WAITING_RUNS * 4; i++) cluster.model.enqueue(askingAgent(log));
    for (let i = 0; i < 2; i++) await cluster.addWorker();
    await cluster.register();
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
  });

  it.skipIf(user.skip !== undefined)('runs no call unapproved, none twice, and asks none again', async () => {
    const effects = () => readFileSync(log, 'utf8').split('\n').filter((l) => l !== '');
    const admin = { admin: cluster.restate.admin };
    const target = { restate: cluster.restate.ingress, admin: cluster.restate.admin };
    const ids = Array.from({ length: WAITING_RUNS }, (_, i) => `wait-${i}-${Date.now().toString(36)}`);
    await Promise.all(ids.map((id, i) => submitRun(cluster.restate.ingress, id, { prompt: `approve ${i}`, permissionMode: 'default' }, id)));
    const allWaiting = () => until('every run to wait', async () => {
      const waiting = await waitingCalls(admin, SERVICE_NAME).catch(() => []);
      return waiting.length === WAITING_RUNS ? waiting : undefined;
    }, 60_000, 500);
    await allWaiting();

    // Faults while every run waits: a worker, then the server.
    await cluster.workers.find((w) => w.alive())?.kill('SIGKILL');
    await cluster.addWorker();
    await cluster.restate.restart('SIGKILL');
    const waiting = await allWaiting();
    expect(effects(), 'calls run unapproved').toEqual([]);

    // Half approved, half denied; the worker running the most approved runs killed at once.
    const approved = new Set(ids.filter((_, i) => i % 2 === 0));
    await Promise.all(waiting.map((call) =>
      approved.has(call.sessionId) ? approveCall(target, call.sessionId, call.toolUseId) : denyCall(target, call.sessionId, call.toolUseId, 'chaos says no')));
    await until('an approved command to start', () => (effects().length > 0 ? true : undefined), 30_000, 50);
    const live = cluster.workers.filter((w) => w.alive());
    const open = (w: WorkerProcess) => cluster.balancer.open.get(w.url) ?? 0;
    await live.reduce((a, b) => (open(b) > open(a) ? b : a)).kill('SIGKILL');
    await cluster.addWorker();

    const results = new Map<string, string>();
    await until('every run to end', async () => {
      for (const id of ids.filter((i) => !results.has(i))) {
        const view = await readSession(admin, SERVICE_NAME, id).catch(() => undefined);
        if (view?.state === 'done') results.set(id, view.result.text);
      }
      return results.size === WAITING_RUNS ? true : undefined;
    }, 90_000, 500);

    const lines = effects();
    console.info(`chaos (approvals, as ${user.name}): ${lines.length} approved commands started, ${[...results.values()].filter((t) => t.includes(INTERRUPTED_BY_WORKER)).length} interrupted`);
    expect(new Set(lines).size, 'no call run twice').toBe(lines.length);
    expect(lines.every((l) => approved.has(ids[Number(l.slice(1))] as string)), 'no call run unapproved').toBe(true);
    ids.forEach((id, i) => {
      const text = results.get(id);
      if (approved.has(id)) expect([`done ${i}: (no output)`, `done ${i}: ${INTERRUPTED_BY_WORKER}`]).toContain(text);
      else expect(text).toBe(`done ${i}: Not run: chaos says no`);
    });
    expect(await waitingCalls(admin, SERVICE_NAME), 'asked again').toEqual([]);
    expect(cluster.model.violations).toEqual([]);
  }, 240_000);
});
