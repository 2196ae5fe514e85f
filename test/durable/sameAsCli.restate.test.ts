/**
 * The durable commands read their flags as a run does (one option table, one parser): `worker --model sonnet` and
 * `submit --model haiku` send the full model ids, as `-p --model sonnet` does. And a worker's runs have the tools a
 * run of the CLI has (run/defaultTools.ts, set up by one function): a long output is kept in the session's folder of
 * the store. Against a real restate-server and the CLI as processes; skipped, saying why, only where the server
 * binary cannot run.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_ALIASES } from '../../src/core/models.js';
import { bashUse, lastToolResults, resultText } from '../support/agentServer.js';
import { startCli } from '../support/cli.js';
import type { RequestBody } from '../support/messagesServer.js';
import { startCluster, type Cluster, until as untilAsync } from './cluster.js';
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

  it("a worker keeps a long output in the session's folder of the store, as -p does (the same tools)", async () => {
    const home = cluster.env.AGENTLOOP_HOME as string;
    /** Runs a command whose output is cut; where the bash tool said the full output is, and the run's session. */
    const savedOutput = async (args: string[]) => {
      cluster.model.enqueue({ content: [bashUse('toolu_long', 'seq 1 30000')], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' });
      const run = await cluster.cli(args);
      expect(run.code, run.stderr).toBe(0);
      const sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;
      const [result] = lastToolResults(cluster.model.requests.at(-1)?.body as RequestBody);
      return { sessionId, path: /the full output is in ([^\]\s]+)/.exec(resultText(result!))?.[1] };
    };
    // seq is not among the read-only commands run unasked: allowed by a rule, in both.
    for (const args of [['-p', '--output-format', 'json', 'count', '--allowedTools', 'Bash(seq:*)'], ['submit', '--restate', cluster.restate.ingress, '--admin', cluster.restate.admin, '--wait', '-p', 'count', '--allowedTools', 'Bash(seq:*)']]) {
      const { sessionId, path } = await savedOutput(args);
      expect(path?.startsWith(`${join(home, 'sessions', sessionId)}/`), `${args[0]}: ${path}`).toBe(true);
      expect(existsSync(path as string), args[0]).toBe(true);
    }
  }, 90_000);

  it('a worker and a run with no permission flag judge as -p does: touch waits for an approval, where -p (nobody to ask) denies it (docs/cli.md: which entry point runs what)', async () => {
    const touch = (name: string) => ({ content: [bashUse('toolu_touch', `touch ${name}`)], stop_reason: 'tool_use' as const });
    // The durable run asks the model no more while its call waits.
    cluster.model.enqueue(touch('by-worker.txt'));
    const submitted = await cluster.cli(['submit', '--restate', cluster.restate.ingress, '--admin', cluster.restate.admin, '-p', 'touch']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.stdout.trim();
    const listed = await untilAsync('the call to wait', async () => {
      const run = await cluster.cli(['approvals', '--restate', cluster.restate.ingress, '--admin', cluster.restate.admin]);
      return run.stdout.split('\n').find((l) => l.startsWith(`${id}  `));
    }, 60_000, 500);
    expect(listed).toMatch(/  \$ touch by-worker\.txt$/);
    expect(existsSync(join(cluster.dir, 'by-worker.txt'))).toBe(false);
    cluster.model.enqueue(touch('by-p.txt'), { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' });
    const local = await cluster.cli(['-p', '--output-format', 'json', 'touch']);
    expect(local.code, local.stderr).toBe(0);
    expect(existsSync(join(cluster.dir, 'by-p.txt'))).toBe(false);
    expect((JSON.parse(local.stdout) as { permission_denials: unknown[] }).permission_denials).toHaveLength(1);
  }, 90_000);
});
