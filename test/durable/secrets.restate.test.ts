/**
 * No secret in what a durable run writes (issue 23 item 5): a real restate-server, an `agentloop worker` process and a
 * local Messages API server that echoes the worker's key (its `x-api-key`) and a credential of the worker's
 * environment in a retried 529, a 401 HTML page with the request's headers, and a model answer. The client commands'
 * output (`submit --wait`, `result`, `messages`), the worker's stderr, the viewer's API over the run, and what Restate
 * itself keeps (the object's state and every journal entry of the invocations) hold neither, in any form the redactor
 * promises; the places that said something say `[redacted ANTHROPIC_API_KEY]`. A prompt that carries the submitter's
 * key and a credential of its environment (pasted by mistake) leaves `submit` with them cut: Restate's journal keeps the
 * invocation's input as it received it. A value only the worker knows is cut by the worker from the model's request and
 * from everything Restate keeps of the run but that input entry, which Restate wrote before any worker saw it. The workers and the client commands run as this user, and again as nobody when
 * this one is root (test/support/users.ts).
 */
import { afterAll, beforeAll, describe, expect, it as base } from 'vitest';
import { restateCall } from '../../src/durable/http.js';
import { firstPrompt } from '../support/agentServer.js';
import { startCli } from '../support/cli.js';
import type { RecordedRequest, Step, StepFn } from '../support/messagesServer.js';
import { startCluster, type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';
import { expectNoSecret as expectNone, FORMS, PASSWORD } from '../support/secretForms.js';
import { testUsers } from '../support/users.js';

const binary = restateBinary();

/** A page of the request's headers, as a gateway's error page may show them. */
const headersPage = (req: RecordedRequest) => `<html><h1>401</h1><pre>${JSON.stringify(req.headers)}\n${FORMS.html?.(PASSWORD)}</pre></html>`;

/**
 * `fault`: a 529 that echoes the key and the password (retried once), then a 401 page of the request's headers.
 * `echo`: an answer that quotes the key and the password.
 */
let faults = 0;
const agent: StepFn = (body, _index, req): Step => {
  const prompt = firstPrompt(body);
  const key = req.headers['x-api-key'] ?? (req.headers.authorization ?? '').replace(/^Bearer /, '');
  if (key === '') throw new Error('the request carried no key');
  if (prompt.startsWith('pasted:')) return { content: [{ type: 'text', text: `The prompt was: ${prompt}` }], stop_reason: 'end_turn' };
  if (prompt === 'echo') return { content: [{ type: 'text', text: `Your key is ${key} and the password ${PASSWORD}.` }], stop_reason: 'end_turn' };
  if (faults++ === 0) {
    return { error: { status: 529, type: 'overloaded_error', message: `Overloaded for ${key} (${PASSWORD})` }, headers: { 'retry-after-ms': '10' } };
  }
  return { error: { status: 401, type: 'authentication_error', message: '' }, raw: { contentType: 'text/html', body: headersPage(req) } };
};

describe.skipIf('problem' in binary).each(testUsers())('a durable run whose API echoes the key, as $name', (user) => {
  let cluster: Cluster;
  let key: string;

  const it = user.skip === undefined ? base : base.skip;
  beforeAll(async () => {
    if (user.skip !== undefined) return;
    faults = 0;
    cluster = await startCluster((binary as { path: string }).path, { user });
    key = cluster.env.ANTHROPIC_API_KEY as string;
    cluster.env.DB_PASSWORD = PASSWORD; // a credential of the worker's environment (by its name)
    for (let i = 0; i < 20; i++) cluster.model.enqueue(agent);
    await cluster.addWorker();
    await cluster.register();
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
  });

  const expectNoSecret = (where: string, text: string) => {
    expectNone(where, text, [key, PASSWORD]);
  };

  /**
   * What Restate keeps of the session: the object's state and the journal of its invocations, as text. `part`: all of
   * it, or only the journal's input entries (what Restate wrote from the request before any worker saw it), or all
   * but them.
   */
  async function restateKeeps(sessionId: string, part: 'all' | 'input' | 'but input' = 'all'): Promise<string> {
    const sql = async (query: string) =>
      (await restateCall<{ rows: unknown[] }>(new URL('/query', cluster.restate.admin), { method: 'POST', headers: { accept: 'application/json' }, body: { query } })).rows;
    const state = await sql(`SELECT * FROM state WHERE service_key = '${sessionId}'`);
    const entries = await sql(`SELECT j.* FROM sys_journal j JOIN sys_invocation i ON j.id = i.id WHERE i.target_service_key = '${sessionId}'`);
    expect(entries.length).toBeGreaterThan(0);
    const isInput = (row: unknown) => (row as { entry_type?: string }).entry_type === 'Command: Input';
    expect(entries.filter(isInput)).toHaveLength(1);
    const journal = part === 'all' ? entries : entries.filter((row) => isInput(row) === (part === 'input'));
    // Bytes (a raw entry: numbers, or hex) as text too, so that a key inside one is found.
    const bytes = (value: unknown) => {
      if (Array.isArray(value) && value.every((n) => typeof n === 'number')) return Buffer.from(value).toString('latin1');
      return typeof value === 'string' && /^(?:[0-9a-f]{2})+$/.test(value) ? Buffer.from(value, 'hex').toString('latin1') : '';
    };
    const text = (rows: unknown[]) => rows.map((row) => Object.values(row as object).map((v) => `${JSON.stringify(v)} ${bytes(v)}`).join('\n')).join('\n');
    return part === 'input' ? text(journal) : `${text(state)}\n${text(journal)}`;
  }

  it('a retried 529 and a 401 page: the result, the history, the worker, the viewer and Restate hold neither key nor password', async () => {
    const run = await cluster.cli(['submit', '-p', 'fault', ...cluster.flags, '--wait', '--max-retries', '1']);
    expect(run.code, run.stderr).toBe(1);
    const json = JSON.parse(run.stdout) as { is_error: boolean; error: string; session_id: string };
    expect(json).toMatchObject({ is_error: true, exit_reason: 'model_error' });
    expect(json.error).toContain('[redacted ANTHROPIC_API_KEY]');
    const result = await cluster.cli(['result', json.session_id, ...cluster.flags]);
    const messages = await cluster.cli(['messages', json.session_id, ...cluster.flags]);
    const view = startCli(['view', ...cluster.flags, json.session_id, '--port', '0'], { cwd: cluster.dir, env: cluster.env, prefix: cluster.prefix });
    let timeline: string;
    try {
      const url = await until('the viewer URL', () => /^(http:\/\/\S+)\n/.exec(view.output().stdout)?.[1], 20_000);
      const token = new URL(url).searchParams.get('token') as string;
      timeline = await (await fetch(new URL(`/api/sessions/${json.session_id}?token=${token}`, url))).text();
    } finally {
      view.child.kill('SIGINT');
      await view.done;
    }
    expect(timeline).toContain('[redacted ANTHROPIC_API_KEY]');
    const kept = await restateKeeps(json.session_id);
    expect(kept).toContain('[redacted ANTHROPIC_API_KEY]');
    const places = { submit: run.stdout + run.stderr, result: result.stdout + result.stderr, messages: messages.stdout, viewer: timeline, restate: kept };
    for (const [where, text] of Object.entries(places)) expectNoSecret(where, text);
    expectNoSecret('the worker', cluster.workers.map((w) => w.output().stdout + w.output().stderr).join('\n'));
  }, 90_000);

  it("a model that echoes the key: the answer, the history and Restate hold it redacted", async () => {
    const run = await cluster.cli(['submit', '-p', 'echo', ...cluster.flags, '--wait']);
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as { result: string; session_id: string };
    expect(json.result).toBe('Your key is [redacted ANTHROPIC_API_KEY] and the password [redacted DB_PASSWORD].');
    const messages = await cluster.cli(['messages', json.session_id, ...cluster.flags]);
    expect(messages.stdout).toContain('[redacted DB_PASSWORD]');
    for (const [where, text] of Object.entries({ submit: run.stdout + run.stderr, messages: messages.stdout, restate: await restateKeeps(json.session_id) })) expectNoSecret(where, text);
  }, 90_000);

  it("a prompt that carries the submitter's key and a credential: cut before it leaves submit, so neither the model nor Restate gets them", async () => {
    const run = await cluster.cli(['submit', '-p', `pasted: my key ${key}, db ${PASSWORD}`, ...cluster.flags, '--wait']);
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as { result: string; session_id: string };
    expect(json.result).toBe('The prompt was: pasted: my key [redacted ANTHROPIC_API_KEY], db [redacted DB_PASSWORD]');
    const messages = await cluster.cli(['messages', json.session_id, ...cluster.flags]);
    expect(messages.stdout).toContain('pasted: my key [redacted ANTHROPIC_API_KEY]');
    const sent = cluster.model.requests.map((r) => JSON.stringify(r.body)).join('\n');
    for (const [where, text] of Object.entries({ submit: run.stdout + run.stderr, messages: messages.stdout, model: sent, restate: await restateKeeps(json.session_id) })) expectNoSecret(where, text);
  }, 90_000);

  it("a value only the worker knows, in the prompt: the worker cuts it from the model's request and from all it keeps; Restate's input entry holds it as submitted", async () => {
    // submit without DB_PASSWORD in its environment: it cannot know the value, so it sends it on.
    const env = { ...cluster.env };
    delete env.DB_PASSWORD;
    const run = await startCli(['submit', '-p', `pasted: worker-only ${PASSWORD}`, ...cluster.flags, '--wait'], { cwd: cluster.dir, env, prefix: cluster.prefix, input: '' }).done;
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as { result: string; session_id: string };
    expect(json.result).toBe('The prompt was: pasted: worker-only [redacted DB_PASSWORD]');
    const messages = await cluster.cli(['messages', json.session_id, ...cluster.flags]);
    expect(messages.stdout).toContain('pasted: worker-only [redacted DB_PASSWORD]');
    const sent = cluster.model.requests.map((r) => JSON.stringify(r.body)).join('\n');
    const kept = await restateKeeps(json.session_id, 'but input');
    expect(kept).toContain('[redacted DB_PASSWORD]');
    for (const [where, text] of Object.entries({ submit: run.stdout + run.stderr, messages: messages.stdout, model: sent, restate: kept })) expectNoSecret(where, text);
    // Restate journals the request as it arrives, before a worker sees it (docs/cli.md says so): the JSON of the prompt.
    expect(await restateKeeps(json.session_id, 'input')).toContain(JSON.stringify(PASSWORD).slice(1, -1));
  }, 90_000);
});
