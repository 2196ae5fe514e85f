/**
 * Durable runs with MCP servers (`agentloop worker --mcp-config`, issue 28): the worker's servers' tools are tools of
 * every run, journalled as bash's are. A read-only call answers; a writing call cut by kill -9 of its worker is not run
 * again by the worker that finishes the run (it answers it as interrupted), and the killed worker's server is gone with
 * it. A real restate-server, two workers behind the balancer, the probe server over stdio.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_BY_WORKER } from '../../src/durable/journal.js';
import { runStatus } from '../../src/durable/ingress.js';
import { historyProblems } from '../../src/history/validate.js';
import { answerFromResults, firstPrompt, lastToolResults } from '../support/agentServer.js';
import type { Step, StepFn } from '../support/messagesServer.js';
import { probe, processesMarked, waitFor } from '../support/mcp.js';
import { startCluster, type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable MCP tests skipped: ${binary.problem}`);

const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id, name, input });

/** `whoami` calls the probe's read-only tool; `slow MARKER` its writing one, which appends to MARKER and waits 60 s. */
const agent: StepFn = (body, index): Step => {
  if (lastToolResults(body).length > 0) return answerFromResults;
  const prompt = firstPrompt(body);
  if (prompt === 'whoami') return { content: [use(`toolu_${index}`, 'mcp__probe__whoami', {})], stop_reason: 'tool_use' };
  const slow = /^slow (\S+)$/.exec(prompt);
  if (slow) return { content: [use(`toolu_${index}`, 'mcp__probe__slow_write', { path: slow[1], seconds: 60 })], stop_reason: 'tool_use' };
  return { content: [{ type: 'text', text: `no script for "${prompt}"` }], stop_reason: 'end_turn' };
};

describe.skipIf('problem' in binary)('durable runs with MCP servers', () => {
  let cluster: Cluster;
  const marker = `durable-mcp-${process.pid}`;

  beforeAll(async () => {
    cluster = await startCluster((binary as { path: string }).path);
    for (let i = 0; i < 20; i++) cluster.model.enqueue(agent);
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it('journals a writing MCP call: after kill -9 mid-call the other worker ends the run without calling it again', async () => {
    const config = JSON.stringify({ mcpServers: { probe: probe(marker) } });
    const workers = [await cluster.addWorker(['--mcp-config', config]), await cluster.addWorker(['--mcp-config', config])];
    await cluster.register();
    expect(processesMarked(marker).length).toBeGreaterThanOrEqual(2);

    const read = await cluster.cli(['submit', '-p', 'whoami', '--allowedTools', 'mcp__probe__whoami', ...cluster.flags, '--wait']);
    expect(read.code, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout)).toMatchObject({ is_error: false, result: 'Results: probe, auth none' });

    const file = join(cluster.dir, 'slow.txt');
    const submitted = await cluster.cli(['submit', '-p', `slow ${file}`, '--allowedTools', 'mcp__probe__slow_write', ...cluster.flags]);
    expect(submitted.code).toBe(0);
    const sessionId = submitted.stdout.trim();
    await until('the MCP call to start', () => (existsSync(file) ? true : undefined));
    const running = workers.filter((w) => (cluster.balancer.open.get(w.url) ?? 0) > 0);
    expect(running, 'the run is on one worker').toHaveLength(1);
    const before = processesMarked(marker).length;
    await running[0]?.kill('SIGKILL');

    const done = await until('the run to finish on the other worker', async () => {
      const status = await runStatus(cluster.restate.ingress, sessionId);
      return status.status === 'done' ? status.result : undefined;
    });
    const results = done.context.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_result')));
    expect(results).toEqual([expect.objectContaining({ is_error: true, content: INTERRUPTED_BY_WORKER })]);
    // Called once: the line it appends is there once, and the killed worker's server went with it.
    expect(readFileSync(file, 'utf8')).toBe('started\n');
    await waitFor(() => processesMarked(marker).length < before);
    expect(cluster.model.violations).toEqual([]);
    for (const request of cluster.model.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
  }, 180_000);
});
