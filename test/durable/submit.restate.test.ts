/**
 * `agentloop submit` as a user meets it, against the real restate-server (issue 36 item 8): a worker with only a key
 * set runs with the default model, as a local run does; a reused `--idempotency-key` with another request is refused
 * (it does not answer with the earlier run); `--wait` with no worker answering says so and exits 3, as `result` does,
 * instead of waiting for ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL } from '../../src/core/models.js';
import { answerFromResults, bashUse, lastToolResults } from '../support/agentServer.js';
import type { Step, StepFn } from '../support/messagesServer.js';
import { startCluster, type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable submit tests skipped: ${binary.problem}`);

const agent: StepFn = (body, index): Step =>
  lastToolResults(body).length > 0 ? answerFromResults : { content: [bashUse(`toolu_${index}`, 'echo ran')], stop_reason: 'tool_use' };

describe.skipIf('problem' in binary)('agentloop submit', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster((binary as { path: string }).path);
    for (let i = 0; i < 10; i++) cluster.model.enqueue(agent);
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
  });

  it('a worker with only ANTHROPIC_API_KEY runs with the default model, as a local run does', async () => {
    const { MODEL_ID: _, ...env } = cluster.env;
    const worker = await cluster.addWorker([], env);
    // It used to exit 2, "No model" (the old code fails here).
    await until('the worker to say its model', () => (/serving AgentSession/.test(worker.output().stderr) ? true : undefined), 10_000);
    expect(worker.output().stderr).toContain(`(model ${DEFAULT_MODEL},`);
    await cluster.register();
    const run = await cluster.cli(['submit', '-p', 'run it', '--wait', ...cluster.flags]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(JSON.parse(run.stdout)).toMatchObject({ result: 'Results: ran', is_error: false });
    expect(cluster.model.requests.map((r) => r.body?.model)).toEqual([DEFAULT_MODEL, DEFAULT_MODEL]);
  }, 90_000);

  it('refuses an --idempotency-key reused with another request, and finds the run with the same one', async () => {
    const key = `nightly-${Date.now()}`;
    const first = await cluster.cli(['submit', '-p', 'run it', '--idempotency-key', key, ...cluster.flags]);
    expect(first.code).toBe(0);
    const again = await cluster.cli(['submit', '-p', 'run it', '--idempotency-key', key, ...cluster.flags]);
    expect([again.code, again.stdout]).toEqual([0, first.stdout]);
    for (const other of [['-p', 'run something else'], ['-p', 'run it', '--max-turns', '3']]) {
      const refused = await cluster.cli(['submit', ...other, '--idempotency-key', key, ...cluster.flags]);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(new RegExp(`^agentloop: --idempotency-key ${key} already started a run with another request \\(invocation inv_\\w+\\): .+\\n$`));
    }
  }, 90_000);

  it('--wait with no worker answering says so and exits 3 within seconds, as result does', async () => {
    await Promise.all(cluster.workers.map((w) => w.kill()));
    const started = Date.now();
    const run = await cluster.cli(['submit', '-p', 'run it', '--wait', ...cluster.flags]);
    const took = Date.now() - started;
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^session [\w-]+: still running, but no worker answers \(attempt \d+ failed[^\n]*\); it goes on when a worker is back; submit stopped waiting: .+ result [\w-]+ --restate .+\n$/);
    // 10 s of backing off in a row (NO_WORKER_MS), read each second; the old code waited until the test's timeout.
    expect(took, `took ${took} ms`).toBeLessThan(40_000);
  }, 90_000);
});
