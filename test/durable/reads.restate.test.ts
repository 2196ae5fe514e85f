/**
 * Reading durable runs never hangs, and the client commands answer alike: `result`, `messages` and
 * `view --restate` read Restate's own state (its admin API), so with no worker up they answer at
 * once (exit 3, "still running, but no worker answers") and leave no invocation behind; an unknown
 * session is exit 2 for all three, with nothing on stdout. A submit whose answer is lost on the way
 * is retried with its `--idempotency-key` and starts one run. Against the real restate-server.
 */
import { readFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restateCall } from '../../src/durable/http.js';
import { answerFromResults, bashUse, lastToolResults, firstPrompt } from '../support/agentServer.js';
import type { Step, StepFn } from '../support/messagesServer.js';
import { startCluster, type Cluster } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable read tests skipped: ${binary.problem}`);

/** `mark FILE`: appends a line to FILE, then answers with the result. */
const agent: StepFn = (body, index): Step => {
  if (lastToolResults(body).length > 0) return answerFromResults;
  const mark = /^mark (\S+)$/.exec(firstPrompt(body));
  if (mark) return { content: [bashUse(`toolu_${index}`, `echo ran >> ${mark[1]}`)], stop_reason: 'tool_use' };
  return { content: [{ type: 'text', text: 'hello' }], stop_reason: 'end_turn' };
};

/** Pending invocations of AgentSession, by handler. */
async function pendingHandlers(admin: string): Promise<string[]> {
  const answer = await restateCall<{ rows: Array<{ target_handler_name: string }> }>(new URL('/query', admin), {
    method: 'POST',
    headers: { accept: 'application/json' },
    body: { query: "SELECT target_handler_name FROM sys_invocation WHERE target_service_name = 'AgentSession' AND status <> 'completed'" },
  });
  return answer.rows.map((r) => r.target_handler_name).sort();
}

/** A TCP proxy that passes a request on and drops the connection as soon as the answer starts: a submit whose answer is lost. */
async function answerLosingProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(port) });
    client.pipe(upstream);
    upstream.once('data', () => {
      client.destroy();
      upstream.destroy();
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf('problem' in binary)('reading durable runs', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster((binary as { path: string }).path);
    for (let i = 0; i < 50; i++) cluster.model.enqueue(agent);
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
  });

  it('answers at once while no worker answers, and leaves no invocation behind', async () => {
    const worker = await cluster.addWorker();
    await cluster.register();
    await worker.kill('SIGKILL'); // the only worker: the run submitted now has none
    const submitted = await cluster.cli(['submit', '-p', 'say hello', ...cluster.flags]);
    expect(submitted.code).toBe(0);
    const id = submitted.stdout.trim();

    // Restate tries the run, finds no worker, and backs off: the reads say so.
    let result = await cluster.cli(['result', id, ...cluster.flags]);
    for (let i = 0; i < 100 && !/no worker answers/.test(result.stderr); i++) result = await cluster.cli(['result', id, ...cluster.flags]);
    expect([result.code, result.stdout]).toEqual([3, '']);
    expect(result.stderr).toMatch(new RegExp(`^session ${id}: still running, but no worker answers \\(attempt \\d+ failed.*\\); it goes on when a worker is back\\n$`));

    const messages = await cluster.cli(['messages', id, ...cluster.flags]);
    expect(messages.code).toBe(3);
    expect(messages.stderr).toMatch(/still running, but no worker answers/);
    const view = await cluster.cli(['view', id, ...cluster.flags, '--port', '0']);
    expect(view.code).toBe(3);
    expect(view.stderr).toMatch(/still running, but no worker answers/);
    // Nothing was invoked to read: the run is the only invocation Restate holds.
    expect(await pendingHandlers(cluster.restate.admin)).toEqual(['run']);

    // A worker back behind the address takes the run on.
    await cluster.addWorker();
    let done = await cluster.cli(['result', id, ...cluster.flags]);
    for (let i = 0; i < 300 && done.code === 3; i++) done = await cluster.cli(['result', id, ...cluster.flags]);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ session_id: id, result: 'hello' });
    const after = await cluster.cli(['messages', id, ...cluster.flags]);
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toHaveLength(2);
  }, 120_000);

  it('an unknown session is exit 2 for every reading command, with nothing on stdout', async () => {
    for (const command of ['result', 'messages', 'view']) {
      const run = await cluster.cli([command, 'no-such-session', ...cluster.flags]);
      expect([command, run.code, run.stdout, run.stderr]).toEqual([
        command,
        2,
        '',
        `agentloop: no durable run of session no-such-session at ${cluster.restate.ingress}\n`,
      ]);
    }
  }, 60_000);

  it('a submit whose answer was lost is retried with its idempotency key, and runs once', async () => {
    if (!cluster.workers.some((w) => w.alive())) await cluster.addWorker();
    const marker = join(cluster.dir, 'once.txt');
    const prompt = `mark ${marker}`;
    const proxy = await answerLosingProxy(cluster.restate.ingress);
    try {
      const lost = await cluster.cli(['submit', '-p', prompt, '--restate', proxy.url, '--admin', cluster.restate.admin, '--idempotency-key', 'nightly-42', '--allowedTools', 'Bash']);
      expect(lost.code).toBe(1);
      expect(lost.stderr).toMatch(
        /^agentloop: the Restate server at http:\/\/127\.0\.0\.1:\d+ closed the connection before answering \(\w+\); the run may have started \(session [0-9a-f-]{36}\): submit again with the same --idempotency-key to be sure it runs once\n$/,
      );
      const sessionId = /session ([0-9a-f-]{36})/.exec(lost.stderr)?.[1];
      const again = await cluster.cli(['submit', '-p', prompt, ...cluster.flags, '--idempotency-key', 'nightly-42', '--allowedTools', 'Bash', '--wait']);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ session_id: sessionId, subtype: 'success' });
      const third = await cluster.cli(['submit', '-p', prompt, ...cluster.flags, '--idempotency-key', 'nightly-42', '--allowedTools', 'Bash']);
      expect(third.stdout.trim()).toBe(sessionId);
    } finally {
      await proxy.close();
    }
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');
    expect(cluster.model.requests.filter((r) => r.body && firstPrompt(r.body) === prompt)).toHaveLength(2);
  }, 120_000);
});
