/**
 * Durable runs against a real restate-server: runs complete, a worker killed mid-tool is replaced
 * without the tool running twice, many runs across three workers keep to themselves, and a model
 * error fails a run cleanly. Skipped, saying why, only where the server binary cannot run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_BY_WORKER } from '../../src/durable/journal.js';
import { attachRun, runMessages, runStatus, runTranscript, submitRun } from '../../src/durable/ingress.js';
import { historyProblems } from '../../src/history/validate.js';
import { answerFromResults, bashUse, lastToolResults, resultText } from '../support/agentServer.js';
import type { RequestBody, Step, StepFn } from '../support/messagesServer.js';
import { startCluster, type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable tests skipped: ${binary.problem}`);

/** The text of the newest user message that is a prompt (not tool results). */
function promptOf(body: RequestBody): string {
  for (const message of [...body.messages].reverse()) {
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    const text = message.content.find((b) => b.type === 'text');
    if (text && text.type === 'text') return text.text;
  }
  return '';
}

/** Requests seen per prompt. */
const asked = new Map<string, number>();

/** Seconds of each back-off asked by the `backoff` prompt. */
const RETRY_AFTER_S = 6;

/**
 * The scripted model: `echo WORD` runs `echo tool saw WORD` and answers with the result;
 * `slow MARKER` runs a command that appends a line to MARKER and sleeps; `backoff MARKER` is
 * refused twice (429, retry-after 6 s) and then does what `slow` does; `fail` is a 400.
 */
const agent: StepFn = (body, index): Step => {
  const prompt = promptOf(body);
  asked.set(prompt, (asked.get(prompt) ?? 0) + 1);
  if (prompt.startsWith('backoff ') && (asked.get(prompt) ?? 0) <= 2) {
    return { error: { status: 429, type: 'rate_limit_error', message: 'slow down' }, headers: { 'retry-after': String(RETRY_AFTER_S) } };
  }
  const results = lastToolResults(body);
  if (results.length > 0 && prompt.startsWith('echo ')) {
    return { content: [{ type: 'text', text: `Answer to "${prompt}": ${results.map(resultText).join(' | ')}` }], stop_reason: 'end_turn' };
  }
  if (results.length > 0) return answerFromResults;
  const echo = /^echo (\S+)$/.exec(prompt);
  if (echo) return { content: [bashUse(`toolu_${index}`, `echo "tool saw ${echo[1]}"`)], stop_reason: 'tool_use' };
  const slow = /^(?:slow|backoff) (\S+)$/.exec(prompt);
  if (slow) return { content: [bashUse(`toolu_${index}`, `echo started >> ${slow[1]}; sleep 20; echo slept`)], stop_reason: 'tool_use' };
  if (prompt.startsWith('fail')) return { error: { status: 400, type: 'invalid_request_error', message: 'scripted failure' } };
  return { content: [{ type: 'text', text: `no script for "${prompt}"` }], stop_reason: 'end_turn' };
};

/** Requests whose conversation started with `prompt`. */
const requestsFor = (cluster: Cluster, prompt: string) =>
  cluster.model.requests.filter((r) => r.body && promptOf({ ...r.body, messages: r.body.messages.slice(0, 1) }) === prompt);

describe.skipIf('problem' in binary)('durable runs on a real restate-server', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster((binary as { path: string }).path);
    for (let i = 0; i < 2000; i++) cluster.model.enqueue(agent);
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
  });

  it('runs a prompt to its answer: submit --wait, result, messages and view read it back', async () => {
    // A worker registered by itself (the balancer is registered for the tests after this one).
    const { startCli } = await import('../support/cli.js');
    const worker = startCli(['worker', '--port', '0', '--register', cluster.restate.admin], { cwd: cluster.dir, env: cluster.env });
    await until('the worker to register', () => (/registered /.test(worker.output().stderr) ? true : undefined), 20_000);
    try {
      const run = await cluster.cli(['submit', '-p', 'echo alpha', ...cluster.flags, '--wait']);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const json = JSON.parse(run.stdout) as { type: string; subtype: string; is_error: boolean; result: string; num_turns: number; session_id: string };
      expect(json).toMatchObject({ type: 'result', subtype: 'success', is_error: false, num_turns: 2, result: 'Answer to "echo alpha": tool saw alpha' });
      // The same JSON as a local `-p --output-format json` run: usage per model from the run's records.
      const local = json as unknown as { modelUsage: Record<string, { inputTokens: number }>; usage: { input_tokens: number }; permission_denials: unknown[] };
      expect(local.modelUsage['claude-test']?.inputTokens).toBe(local.usage.input_tokens);
      expect(local.permission_denials).toEqual([]);

      const again = await cluster.cli(['result', json.session_id, ...cluster.flags]);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ session_id: json.session_id, result: 'Answer to "echo alpha": tool saw alpha' });

      // The session's next question goes on from its history, with the turns counted on.
      const next = await cluster.cli(['submit', '-p', 'echo beta', '--session-id', json.session_id, ...cluster.flags, '--wait']);
      expect(next.code).toBe(0);
      expect(JSON.parse(next.stdout)).toMatchObject({ session_id: json.session_id, num_turns: 4, result: 'Answer to "echo beta": tool saw beta' });

      const messages = await cluster.cli(['messages', json.session_id, ...cluster.flags]);
      const history = JSON.parse(messages.stdout) as RequestBody['messages'];
      expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
      expect(historyProblems(history)).toEqual([]);

      const view = startCli(['view', ...cluster.flags, json.session_id, '--port', '0'], { cwd: cluster.dir, env: cluster.env });
      const url = await until('the viewer URL', () => /^(http:\/\/\S+)\n/.exec(view.output().stdout)?.[1], 20_000);
      const token = new URL(url).searchParams.get('token') as string;
      const timeline = (await (await fetch(new URL(`/api/sessions/${json.session_id}?token=${token}`, url))).json()) as { steps?: unknown[] };
      view.child.kill('SIGINT');
      await view.done;
      expect(JSON.stringify(timeline)).toContain('tool saw alpha');

      const unknown = await cluster.cli(['result', 'no-such-session', ...cluster.flags]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/no durable run of session no-such-session/);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.done;
    }
  }, 90_000);

  it('finishes a run on another worker after kill -9 mid-tool, without running the tool again', async () => {
    const [first, second] = [await cluster.addWorker(), await cluster.addWorker()];
    await cluster.register();
    const marker = join(cluster.dir, 'marker.txt');
    const prompt = `slow ${marker}`;
    const submitted = await cluster.cli(['submit', '-p', prompt, '--allowedTools', 'Bash', ...cluster.flags]);
    expect(submitted.code).toBe(0);
    const sessionId = submitted.stdout.trim();

    await until('the tool to start', () => (existsSync(marker) ? true : undefined));
    // The run is the one stream open through the balancer: its worker is the one to kill.
    const running = [first, second].filter((w) => (cluster.balancer.open.get(w.url) ?? 0) > 0);
    expect(running, 'the run is on one worker').toHaveLength(1);
    const still = await cluster.cli(['result', sessionId, ...cluster.flags]);
    expect([still.code, still.stdout, still.stderr]).toEqual([3, '', `session ${sessionId}: still running\n`]);
    await running[0]?.kill('SIGKILL');

    const done = await until('the run to finish on the other worker', async () => {
      const status = await runStatus(cluster.restate.ingress, sessionId);
      return status.status === 'done' ? status.result : undefined;
    });
    expect(done.context.exitReason).toBe('completed');
    const results = done.context.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_result')));
    expect(results).toEqual([expect.objectContaining({ is_error: true, content: INTERRUPTED_BY_WORKER })]);
    expect(done.text).toBe(`Results: ${INTERRUPTED_BY_WORKER}`);
    // The tool ran once; the first reply came from the journal, not from a second request.
    expect(readFileSync(marker, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(requestsFor(cluster, prompt)).toHaveLength(2);
    expect(cluster.model.violations).toEqual([]);
    for (const request of cluster.model.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
  }, 120_000);

  it('replays a run after its back-offs without waiting them again', async () => {
    while (cluster.workers.filter((w) => w.alive()).length < 2) await cluster.addWorker();
    await cluster.register();
    const marker = join(cluster.dir, 'backoff.txt');
    const prompt = `backoff ${marker}`;
    const submitted = await cluster.cli(['submit', '-p', prompt, '--allowedTools', 'Bash', ...cluster.flags]);
    const sessionId = submitted.stdout.trim();
    await until('the tool to start after two back-offs', () => (existsSync(marker) ? true : undefined));
    expect(requestsFor(cluster, prompt)).toHaveLength(3);
    const running = cluster.workers.filter((w) => w.alive() && (cluster.balancer.open.get(w.url) ?? 0) > 0);
    expect(running).toHaveLength(1);
    await running[0]?.kill('SIGKILL');
    const killed = Date.now();
    const done = await until('the run to finish on another worker', async () => {
      const status = await runStatus(cluster.restate.ingress, sessionId);
      return status.status === 'done' ? status.result : undefined;
    });
    const took = Date.now() - killed;
    expect(done.context.exitReason).toBe('completed');
    // The replay took the two failed calls and both waits from the journal: no request, and not the two waits
    // again (a wait not taken from the journal is a timer of the process, so a replay would wait both). The bound
    // is the two waits together, not one: the failover itself took 6.6 s at load average 24.
    expect(requestsFor(cluster, prompt)).toHaveLength(4);
    expect(took, `the replay took ${took} ms`).toBeLessThan(2 * RETRY_AFTER_S * 1000);
  }, 120_000);

  it('runs 100 prompts across three workers, each answered from its own run', async () => {
    while (cluster.workers.filter((w) => w.alive()).length < 3) await cluster.addWorker();
    const live = cluster.workers.filter((w) => w.alive());
    expect(live).toHaveLength(3);
    const before = new Map(live.map((w) => [w.url, cluster.balancer.counts.get(w.url) ?? 0]));
    const words = Array.from({ length: 100 }, (_, i) => `word${i}x${Math.random().toString(36).slice(2, 8)}`);
    const invocations = await Promise.all(words.map((w, i) => submitRun(cluster.restate.ingress, `many-${i}`, { prompt: `echo ${w}` }, `many-${i}`)));
    const results = await Promise.all(invocations.map((inv) => attachRun(cluster.restate.ingress, inv.invocationId)));
    results.forEach((result, i) => {
      expect(result.context.exitReason).toBe('completed');
      expect(result.sessionId).toBe(`many-${i}`);
      // The answer names the run's own prompt, and its tool saw its own word (no output lost under this load:
      // test/tools/bash/bashDrain.process.test.ts).
      expect(result.text).toBe(`Answer to "echo ${words[i]}": tool saw ${words[i]}`);
    });
    for (const worker of live) expect(cluster.balancer.counts.get(worker.url) ?? 0).toBeGreaterThan(before.get(worker.url) ?? 0);
    expect(cluster.model.violations).toEqual([]);
  }, 180_000);

  it('runs two runs submitted to one session at once one after the other: one writer, the second goes on from the first', async () => {
    while (cluster.workers.filter((w) => w.alive()).length < 2) await cluster.addWorker();
    await cluster.register();
    const id = 'one-session-two-runs';
    const words = ['first-w', 'second-w'];
    const invocations = await Promise.all(words.map((w) => submitRun(cluster.restate.ingress, id, { prompt: `echo ${w}` }, `${id}-${w}`)));
    const results = await Promise.all(invocations.map((inv) => attachRun(cluster.restate.ingress, inv.invocationId)));
    for (const [i, result] of results.entries()) expect(result.text).toBe(`Answer to "echo ${words[i]}": tool saw ${words[i]}`);
    // Whichever ran first, the other started from its whole turn: eight messages, the two turns one after the other.
    const messages = await runMessages(cluster.restate.ingress, id);
    expect(historyProblems(messages)).toEqual([]);
    const prompts = messages.filter((m, i) => m.role === 'user' && i % 4 === 0).map((m) => promptOf({ messages: [m] } as RequestBody));
    expect(messages).toHaveLength(8);
    expect([...prompts].sort()).toEqual(words.map((w) => `echo ${w}`));
    const later = results.find((r) => r.context.messages.length === 8);
    expect(later?.context.messages).toEqual(messages);
    const records = await runTranscript(cluster.restate.ingress, id);
    expect(records.filter((r) => r.type === 'prompt').map((r) => (r as { text: string }).text)).toEqual(prompts);
    expect(cluster.model.violations).toEqual([]);
  }, 120_000);

  it('fails a run cleanly on a model error, its history readable', async () => {
    const run = await cluster.cli(['submit', '-p', 'fail please', ...cluster.flags, '--wait', '--max-retries', '0']);
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout) as { is_error: boolean; exit_reason: string; error: string; session_id: string };
    expect(json).toMatchObject({ is_error: true, exit_reason: 'model_error' });
    expect(json.error).toMatch(/scripted failure/);
    const messages = await cluster.cli(['messages', json.session_id, ...cluster.flags]);
    expect(JSON.parse(messages.stdout)).toEqual([{ role: 'user', content: [{ type: 'text', text: 'fail please' }] }]);
    const result = await cluster.cli(['result', json.session_id, ...cluster.flags]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ is_error: true, exit_reason: 'model_error' });
  }, 60_000);
});
