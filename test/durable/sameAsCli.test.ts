/**
 * The durable commands read their flags as a run does (one option table, one parser): `worker --model sonnet` and
 * `submit --model haiku` send the full model ids, as `-p --model sonnet` does. Against a real restate-server and the
 * CLI as processes; skipped, saying why, only where the server binary cannot run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_ALIASES } from '../../src/core/models.js';
import { startCli } from '../support/cli.js';
import type { RequestBody } from '../support/messagesServer.js';
import { startCluster, type Cluster } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable tests skipped: ${binary.problem}`);

async function until<T>(what: string, check: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf('problem' in binary)('durable commands read their flags as a run does', () => {
  let cluster: Cluster;
  let worker: ReturnType<typeof startCli>;

  beforeAll(async () => {
    cluster = await startCluster((binary as { path: string }).path);
    worker = startCli(['worker', '--port', '0', '--model', 'sonnet', '--cwd', cluster.dir, '--register', cluster.restate.admin], { cwd: cluster.dir, env: cluster.env });
    await until('the worker to register', () => (/registered /.test(worker.output().stderr) ? true : undefined));
  }, 60_000);

  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.done;
    await cluster?.close();
  });

  const answer = () => cluster.model.enqueue({ content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' });
  const models = () => cluster.model.requests.map((request) => (request.body as RequestBody).model);

  it('worker --model sonnet sends the full id, as -p --model sonnet does', async () => {
    answer();
    const run = await cluster.cli(['submit', '--restate', cluster.restate.ingress, '--admin', cluster.restate.admin, '--wait', '-p', 'hello']);
    expect(run.code, run.stderr).toBe(0);
    answer();
    const local = await cluster.cli(['-p', '--model', 'sonnet', 'hello']);
    expect(local.code, local.stderr).toBe(0);
    expect(models().slice(-2)).toEqual([MODEL_ALIASES.sonnet, MODEL_ALIASES.sonnet]);
  }, 60_000);

  it('submit --model haiku sends the full id', async () => {
    answer();
    const run = await cluster.cli(['submit', '--model', 'haiku', '--restate', cluster.restate.ingress, '--admin', cluster.restate.admin, '--wait', 'hello again']);
    expect(run.code, run.stderr).toBe(0);
    expect(models().at(-1)).toBe(MODEL_ALIASES.haiku);
  }, 60_000);
});
