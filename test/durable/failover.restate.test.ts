/**
 * A frozen worker (SIGSTOP) loses its runs to another by Restate's own timeouts (inactivity 10 s + abort 5 s, set
 * when the worker registers): behind a plain proxy with no health check, which keeps the frozen worker's streams open
 * and hands it new attempts in turn with the other, Restate itself ends each attempt there and retries it. A tool that runs longer than those timeouts
 * on a worker that answers is not taken away: its step journals a heartbeat. (`agentloop balancer`
 * notices a frozen worker itself, in seconds: pool.test.ts.) Against the real restate-server.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_BY_WORKER } from '../../src/durable/journal.js';
import { attachRun, submitRun } from '../../src/durable/ingress.js';
import { answerFromResults, bashUse, lastToolResults, firstPrompt } from '../support/agentServer.js';
import type { Step, StepFn } from '../support/messagesServer.js';
import { startCluster, type Cluster, type WorkerProcess, until } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable failover tests skipped: ${binary.problem}`);

/** `SECONDS MARKER`: a command that appends to MARKER, sleeps SECONDS and says "slept". */
const agent: StepFn = (body, index): Step => {
  if (lastToolResults(body).length > 0) return answerFromResults;
  const [seconds, marker] = firstPrompt(body).split(' ');
  return { content: [bashUse(`toolu_${index}`, `echo started >> ${marker}; sleep ${seconds}; echo slept`)], stop_reason: 'tool_use' };
};

describe.skipIf('problem' in binary)('a frozen worker', () => {
  let cluster: Cluster;
  let frozen: WorkerProcess | undefined;

  beforeAll(async () => {
    cluster = await startCluster((binary as { path: string }).path);
    for (let i = 0; i < 20; i++) cluster.model.enqueue(agent);
  }, 60_000);

  afterAll(async () => {
    if (frozen?.alive()) process.kill(frozen.pid, 'SIGCONT');
    await cluster?.close();
  });

  /** Starts a run whose tool appends to `marker`, and waits for the tool to start. */
  async function startRun(id: string, seconds: number, marker: string) {
    const { invocationId } = await submitRun(cluster.restate.ingress, id, { prompt: `${seconds} ${marker}`, allowedTools: ['Bash'] }, id);
    await until(`the tool of ${id} to start`, () => (existsSync(marker) ? true : undefined));
    return invocationId;
  }

  it('loses its runs to another, behind a proxy that keeps sending it attempts, while a long tool elsewhere keeps its worker', async () => {
    const [a, b] = [await cluster.addWorker(), await cluster.addWorker()];
    await cluster.register();
    // The long run on b, three runs to freeze on a: the proxy sends new streams only where it is told.
    const longMarker = join(cluster.dir, 'long.txt');
    cluster.balancer.setBackends([b.url]);
    const long = await startRun('long-run', 30, longMarker);
    cluster.balancer.setBackends([a.url]);
    const markers = [0, 1, 2].map((i) => join(cluster.dir, `frozen-${i}.txt`));
    const cut = [];
    for (const [i, marker] of markers.entries()) cut.push(await startRun(`frozen-run-${i}`, 300, marker));

    frozen = a;
    process.kill(a.pid, 'SIGSTOP');
    // No health check: the proxy goes on handing attempts to the frozen worker in turn with the other, as a plain
    // round-robin proxy does. Each attempt there costs Restate's timeouts (10 s + 5 s, and 5 s to drain the stream);
    // with the old 30 s + 10 s, runs were held 90 and 137 s (bound: 100 s, five attempts there).
    cluster.balancer.setBackends([a.url, b.url]);
    const stopped = Date.now();
    const moved = await Promise.all(cut.map(async (id) => ({ result: await attachRun(cluster.restate.ingress, id), took: Date.now() - stopped })));
    for (const [i, { result, took }] of moved.entries()) {
      expect(took, `run ${i} moved after ${took} ms`).toBeLessThan(100_000);
      expect(result.context.exitReason).toBe('completed');
      expect(result.text).toBe(`Results: ${INTERRUPTED_BY_WORKER}`);
      expect(readFileSync(markers[i] as string, 'utf8')).toBe('started\n');
    }
    console.info(`failover: runs moved after ${moved.map((m) => m.took).join(', ')} ms`);

    // 30 s of tool on b: longer than the inactivity timeout, yet it ran once, to its end.
    const finished = await attachRun(cluster.restate.ingress, long);
    expect(finished.text).toBe('Results: slept');
    expect(readFileSync(longMarker, 'utf8')).toBe('started\n');
    expect(cluster.model.violations).toEqual([]);
  }, 150_000);
});
