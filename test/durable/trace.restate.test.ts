/**
 * A durable run joins its submitter's trace (issue 29): `agentloop submit` with TRACEPARENT forwards it as the
 * invocation's `traceparent`, and a worker traced by the OTEL_* variables makes it the parent of the run's
 * `invoke_agent` span. The real restate-server (its own tracing off: no attempt trace context, so the submitter's span
 * is the parent), `agentloop worker` processes behind the balancer, the real OTLP exporter sending to a receiver on
 * 127.0.0.1. And what a replay shows: after kill -9 of the worker mid-tool, the attempt that finishes emits the run's
 * spans again, the replayed steps included.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_BY_WORKER } from '../../src/durable/journal.js';
import { answerFromResults, bashUse, lastToolResults, firstPrompt } from '../support/agentServer.js';
import { runCli } from '../support/cli.js';
import type { Step, StepFn } from '../support/messagesServer.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver.js';
import { startCluster, type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable trace tests skipped: ${binary.problem}`);

/** `trace`: a tool that prints its TRACEPARENT, then an answer; `slow MARKER`: a tool that writes MARKER and sleeps. */
const agent: StepFn = (body, index): Step => {
  if (lastToolResults(body).length > 0) return answerFromResults;
  const slow = /^slow (\S+)$/.exec(firstPrompt(body));
  if (slow) return { content: [bashUse(`toolu_${index}`, `echo started >> ${slow[1]}; sleep 60`)], stop_reason: 'tool_use' };
  return { content: [bashUse(`toolu_${index}`, 'echo "tp=$TRACEPARENT"')], stop_reason: 'tool_use' };
};

const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;
const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');

describe.skipIf('problem' in binary)('durable runs in the submitter’s trace', () => {
  let cluster: Cluster;
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    cluster = await startCluster((binary as { path: string }).path);
    // The workers trace, as the CLI does, from the standard variables; spans leave every 100 ms.
    Object.assign(cluster.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100' });
    for (let i = 0; i < 20; i++) cluster.model.enqueue(agent);
    await cluster.addWorker();
    await cluster.addWorker();
    await cluster.register();
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
    await receiver?.close();
  });

  /** The spans of trace `traceId` once its `invoke_agent` span (the end of a run) has arrived. */
  const traceOf = (traceId: string, runs = 1) =>
    until(`the run's spans in trace ${traceId}`, () => {
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      return spans.filter((s) => s.name === 'invoke_agent agentloop').length >= runs ? spans : undefined;
    });
  const named = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

  it("makes the submitter's span the parent of the run's invoke_agent span", async () => {
    const [traceId, spanId] = [hex(32), hex(16)];
    const submit = await runCli(['submit', '-p', 'trace', '--allowedTools', 'Bash', ...cluster.flags, '--wait'], { cwd: cluster.dir, env: { ...cluster.env, TRACEPARENT: traceparent(traceId, spanId) } });
    expect(submit.code, submit.stderr).toBe(0);
    const result = JSON.parse(submit.stdout) as { session_id: string; result: string };
    const spans = await traceOf(traceId);
    const [agentSpan] = named(spans, 'invoke_agent agentloop');
    expect(agentSpan?.parentSpanId).toBe(spanId);
    expect(agentSpan?.attributes['gen_ai.conversation.id']).toBe(result.session_id);
    const chats = named(spans, 'chat claude-test');
    const [tool] = named(spans, 'execute_tool bash');
    expect(chats).toHaveLength(2);
    for (const child of [...chats, tool]) expect(child?.parentSpanId).toBe(agentSpan?.spanId);
    // The command ran in the tool's span: its TRACEPARENT names it.
    expect(result.result).toBe(`Results: tp=${traceparent(traceId, tool?.spanId ?? '')}`);

    // Without TRACEPARENT, a run is a trace of its own.
    const plain = await runCli(['submit', '-p', 'trace', '--allowedTools', 'Bash', ...cluster.flags, '--wait'], { cwd: cluster.dir, env: cluster.env });
    const plainId = (JSON.parse(plain.stdout) as { session_id: string }).session_id;
    const root = await until('the plain run’s span', () => receiver.spans.find((s) => s.name === 'invoke_agent agentloop' && s.attributes['gen_ai.conversation.id'] === plainId));
    expect([root.parentSpanId, root.traceId === traceId]).toEqual(['', false]);
  }, 120_000);

  it('after kill -9 mid-tool, the attempt that finishes emits the run again: the replayed call, the interrupted tool', async () => {
    const [traceId, spanId] = [hex(32), hex(16)];
    const marker = join(cluster.dir, 'slow.txt');
    const submit = await runCli(['submit', '-p', `slow ${marker}`, '--allowedTools', 'Bash', ...cluster.flags], { cwd: cluster.dir, env: { ...cluster.env, TRACEPARENT: traceparent(traceId, spanId) } });
    expect(submit.code, submit.stderr).toBe(0);
    await until('the tool to start', () => (existsSync(marker) ? true : undefined));
    const [running] = cluster.workers.filter((w) => w.alive() && (cluster.balancer.open.get(w.url) ?? 0) > 0);
    await running?.kill('SIGKILL');

    const spans = await traceOf(traceId);
    // One invoke_agent (the dead attempt's never ended), a child of the submitter's span; under it both model
    // calls (the first replayed from the journal) and the tool, answered as interrupted.
    const agentSpans = named(spans, 'invoke_agent agentloop');
    expect(agentSpans.map((s) => s.parentSpanId)).toEqual([spanId]);
    const children = spans.filter((s) => s.parentSpanId === agentSpans[0]?.spanId);
    expect(children.map((s) => s.name).sort()).toEqual(['chat claude-test', 'chat claude-test', 'execute_tool bash']);
    const tool = children.find((s) => s.name === 'execute_tool bash');
    expect(tool?.status.code).toBe('ERROR');
    expect(JSON.stringify(tool?.attributes)).not.toContain('sleep 60'); // no content without the opt-in
    const result = await cluster.cli(['result', submit.stdout.trim(), ...cluster.flags]);
    expect(JSON.parse(result.stdout)).toMatchObject({ result: `Results: ${INTERRUPTED_BY_WORKER}` });
  }, 120_000);
});
