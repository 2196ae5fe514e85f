/**
 * The commands the durable commands print for the user to run next, run AS PRINTED after the README's install (as
 * test/cli/hints.browser.test.ts does for the others): each first command runs as the README writes it (`node dist/cli/main.js
 * …` through sh in the checkout, no `agentloop` on the PATH), against a real restate-server and the local Messages API
 * server; each hint is taken out of its real output and run through sh from another directory, as pasted.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balancerBackends } from '../../src/durable/pool.js';
import { firstPrompt, startCheckedServer } from '../support/agentServer.js';
import { hint, hintUser, README, ROOT, serve, sh, type Ran, type Serving } from '../support/hints.js';
import type { MessagesServer, StepFn } from '../support/messagesServer.js';
import { freePort, restateBinary, startRestateServer, type RestateServer } from '../durable/restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable hint tests skipped: ${binary.problem}`);

/** Every prompt answered at once, by name. */
const agent: StepFn = (body) => ({ content: [{ type: 'text', text: `answer to ${firstPrompt(body)}` }], stop_reason: 'end_turn' });

describe.skipIf('problem' in binary)('the commands the durable commands print, run as printed after the README’s install', () => {
  let restate: RestateServer;
  let model: MessagesServer;
  let user: ReturnType<typeof hintUser>;
  let env: NodeJS.ProcessEnv;
  const serving: Serving[] = [];

  beforeAll(async () => {
    [restate, model] = await Promise.all([startRestateServer((binary as { path: string }).path), startCheckedServer()]);
    for (let i = 0; i < 20; i++) model.enqueue(agent);
    user = hintUser('hints-durable');
    env = { ...user.env, ANTHROPIC_API_KEY: 'sk-ant-hints-durable', ANTHROPIC_BASE_URL: model.url, MODEL_ID: 'claude-test' };
  }, 60_000);

  afterAll(async () => {
    await Promise.all(serving.map((s) => s.stop()));
    await Promise.all([restate?.close(), model?.close()]);
    rmSync(user.dir, { recursive: true, force: true });
  }, 60_000);

  /** A serving command started (through sh, from `cwd`) and stopped after the file. */
  const start = (line: string, cwd: string) => {
    const started = serve(line, cwd, env);
    serving.push(started);
    return started;
  };
  /** `result` as printed, again while it says the run is still going (exit 3), as a user would. */
  async function readResult(line: string): Promise<Ran> {
    let read = await sh(line, user.elsewhere, env);
    for (let i = 0; read.code === 3 && i < 600; i++) read = await sh(line, user.elsewhere, env);
    return read;
  }

  it('a second worker refused: the balancer it offers, run as printed, takes both workers, and "see: … result ID" after a submit reads the run', { timeout: 240_000 }, async () => {
    const workerLine = `${README} worker --port 0 --register ${restate.admin}`;
    const first = start(workerLine, ROOT);
    await first.ready(/^registered /m);
    const firstUrl = first.output().stdout.trim();
    const refused = await sh(workerLine, ROOT, env);
    expect(refused.code, refused.stderr).toBe(1);
    const offered = hint(refused.stderr, /put them behind a balancer \((.+? balancer [^;]+?)(?:, then |; see)/);
    const balancer = start(offered, user.elsewhere);
    await balancer.ready(/^registered /m);
    const balancerUrl = balancer.output().stdout.trim();
    // "then this worker's command again: it joins the balancer".
    const second = start(workerLine, ROOT);
    await second.ready(/^joined the workers of the balancer at /m);
    expect(await balancerBackends(balancerUrl)).toEqual([firstUrl, second.output().stdout.trim()]);

    const submitted = await sh(`${README} submit -p "hello there" --restate ${restate.ingress} --admin ${restate.admin}`, ROOT, env);
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.stdout.trim();
    const read = await readResult(hint(submitted.stderr, /; see: (.+ result \S+.*)$/m));
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({ subtype: 'success', session_id: id, result: 'answer to hello there' });
    expect(model.violations).toEqual([]);
    // Ctrl-C stops each, although Restate keeps its connections to them open.
    expect(await Promise.all([balancer.stop(), first.stop(), second.stop()])).toEqual([0, 0, 0]);
  });

  it('a balancer with no worker: "(… worker --port N)", run as printed with its port, is the worker the balancer then registers in front of', { timeout: 240_000 }, async () => {
    const port = await freePort();
    const balancerLine = `${README} balancer --port 0 --backend http://127.0.0.1:${port} --register ${restate.admin} --replace`;
    const lonely = await sh(balancerLine, ROOT, env);
    expect(lonely.code, lonely.stderr).toBe(1);
    const offered = hint(lonely.stderr, /start them first \((.+ worker --port) N\)$/m);
    const worker = start(`${offered} ${port}`, user.elsewhere);
    await worker.ready(/^http:\/\//m);
    expect(worker.output().stdout.trim()).toBe(`http://127.0.0.1:${port}`);
    const balancer = start(balancerLine, ROOT);
    await balancer.ready(/^registered /m);
    const run = await sh(`${README} submit -p "through the balancer" --restate ${restate.ingress} --admin ${restate.admin} --wait`, ROOT, env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', result: 'answer to through the balancer' });
    expect(await Promise.all([balancer.stop(), worker.stop()])).toEqual([0, 0]);
  });
});
