/**
 * A durable run joins its submitter's trace (issue 29): `agentloop submit` with TRACEPARENT forwards it as the
 * invocation's `traceparent`, and a worker traced by the OTEL_* variables makes it the parent of the run's
 * `invoke_agent` span. The real restate-server (its own tracing off: no attempt trace context, so the submitter's span
 * is the parent), `agentloop worker` processes behind the balancer, the real OTLP exporter sending to a receiver on
 * 127.0.0.1. And what a replay shows: after kill -9 of the worker mid-tool, the attempt that finishes emits the run's
 * spans again, the replayed steps included.
 *
 * A run's subagents (issue 38), each its own invocation: the child's `invoke_agent` span is under its Agent call's
 * `execute_tool` span, in the run's trace (the submitter's, or the run's own), two children of one reply each under its
 * own call; after kill -9 inside a child (its parent's worker killed with it), the attempts that finish hang under the
 * same span as the first: one trace, each span of the run once but those of the work the dead attempts finished (as
 * for the parent alone, above).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_BY_WORKER } from '../../src/durable/journal.js';
import { answerFromResults, bashUse, lastToolResults, firstPrompt } from '../support/agentServer.js';
import { runCli } from '../support/cli.js';
import type { RequestBody, Step, StepFn } from '../support/messagesServer.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver.js';
import { startCluster, type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable trace tests skipped: ${binary.problem}`);

const AGENTS = { tracer: { description: 'Traces', prompt: 'You are the tracer agent.', tools: ['Bash'] } };
const isChild = (body: RequestBody) => JSON.stringify(body.system ?? '').includes('You are the tracer agent.');
/** The bash tool by the name the request offers it (a child's agent names it `Bash`). */
const bashOf = (body: RequestBody) => (body.tools ?? []).map((tool) => (tool as { name: string }).name).find((name) => name.toLowerCase() === 'bash') ?? 'bash';

/**
 * `trace`: a tool that prints its TRACEPARENT, then an answer; `slow MARKER`: a tool that writes MARKER and sleeps;
 * `agents CASE DIR: a b`: an Agent call for each child named, whose prompt is `trace` (`a:slow`: `slow DIR/CASE-a`).
 */
const agent: StepFn = (body, index): Step => {
  if (lastToolResults(body).length > 0) return answerFromResults;
  const agents = /^agents (\S+) (\S+): (.+)$/.exec(firstPrompt(body));
  if (agents && !isChild(body)) {
    const [, name, dir, children] = agents as unknown as [string, string, string, string];
    const uses = children.split(' ').map((child) => {
      const [id, how] = child.split(':') as [string, string | undefined];
      const prompt = how === 'slow' ? `slow ${join(dir, `${name}-${id}`)}` : 'trace';
      return { type: 'tool_use' as const, id: `toolu_agent_${name}_${id}`, name: 'Agent', input: { description: `child ${id}`, prompt, subagent_type: 'tracer' } };
    });
    return { content: uses, stop_reason: 'tool_use' };
  }
  const bash = (command: string) => ({ ...bashUse(`toolu_${index}`, command), name: bashOf(body) });
  const slow = /^slow (\S+)$/.exec(firstPrompt(body));
  if (slow) return { content: [bash(`echo started >> ${slow[1]}; sleep 60`)], stop_reason: 'tool_use' };
  return { content: [bash('echo "tp=$TRACEPARENT"')], stop_reason: 'tool_use' };
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
    for (let i = 0; i < 60; i++) cluster.model.enqueue(agent);
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

  /** The spans of trace `traceId` once the run's span and its `children` children's have arrived. */
  const withChildren = (traceId: string, children: number) =>
    until(`the run's and its children's spans in trace ${traceId}`, () => {
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      return named(spans, 'invoke_agent agentloop').length >= 1 && named(spans, 'invoke_agent tracer').length >= children ? spans : undefined;
    });

  /** Each child's invoke_agent under its own Agent call's execute_tool span (one each), under the run's span; its own spans under it. */
  function checkNesting(spans: ReceivedSpan[], name: string, children: string[]) {
    const [run] = named(spans, 'invoke_agent agentloop');
    const calls = named(spans, 'execute_tool Agent');
    expect(calls.map((s) => s.attributes['gen_ai.tool.call.id']).sort()).toEqual(children.map((c) => `toolu_agent_${name}_${c}`));
    const childRuns = named(spans, 'invoke_agent tracer');
    expect(childRuns).toHaveLength(children.length);
    for (const call of calls) {
      expect(call.parentSpanId).toBe(run?.spanId);
      const under = childRuns.filter((s) => s.parentSpanId === call.spanId);
      expect(under, `one child under ${String(call.attributes['gen_ai.tool.call.id'])}`).toHaveLength(1);
      expect(under[0]?.attributes['gen_ai.agent.name']).toBe('tracer');
    }
    return childRuns.map((child) => ({ child, own: spans.filter((s) => s.parentSpanId === child.spanId) }));
  }

  it("hangs each child's invoke_agent under its own Agent call's execute_tool, in the run's trace", async () => {
    const [traceId, spanId] = [hex(32), hex(16)];
    const args = ['submit', '-p', `agents t1 ${cluster.dir}: a b`, '--agents', JSON.stringify(AGENTS), '--allowedTools', 'Bash', ...cluster.flags, '--wait'];
    const submit = await runCli(args, { cwd: cluster.dir, env: { ...cluster.env, TRACEPARENT: traceparent(traceId, spanId) } });
    expect(submit.code, submit.stderr).toBe(0);
    const result = JSON.parse(submit.stdout) as { result: string };
    const spans = await withChildren(traceId, 2);
    expect(named(spans, 'invoke_agent agentloop')[0]?.parentSpanId).toBe(spanId);
    for (const { own } of checkNesting(spans, 't1', ['a', 'b'])) {
      expect(own.map((s) => s.name).sort()).toEqual(['chat claude-test', 'chat claude-test', 'execute_tool bash']);
      // The child's command ran in its tool's span, in the run's trace: its TRACEPARENT names it.
      const tool = own.find((s) => s.name === 'execute_tool bash');
      expect(result.result).toContain(`tp=${traceparent(traceId, tool?.spanId ?? '')}`);
    }

    // Submitted without a trace: the run's own trace holds its children.
    const plain = await runCli(args.map((a) => a.replace('agents t1', 'agents t2')), { cwd: cluster.dir, env: cluster.env });
    expect(plain.code, plain.stderr).toBe(0);
    const plainId = (JSON.parse(plain.stdout) as { session_id: string }).session_id;
    const root = await until('the plain run’s span', () => receiver.spans.find((s) => s.name === 'invoke_agent agentloop' && s.attributes['gen_ai.conversation.id'] === plainId));
    expect(root.parentSpanId).toBe('');
    checkNesting(await withChildren(root.traceId, 2), 't2', ['a', 'b']);
  }, 120_000);

  it('after kill -9 inside a child, the attempts that finish hang under the same Agent call: one trace, no span twice but the dead attempts’', async () => {
    const [traceId, spanId] = [hex(32), hex(16)];
    const marker = join(cluster.dir, 'k1-a');
    while (cluster.workers.filter((w) => w.alive()).length < 4) await cluster.addWorker();
    const args = ['submit', '-p', `agents k1 ${cluster.dir}: a:slow`, '--agents', JSON.stringify(AGENTS), '--allowedTools', 'Bash', ...cluster.flags];
    const submit = await runCli(args, { cwd: cluster.dir, env: { ...cluster.env, TRACEPARENT: traceparent(traceId, spanId) } });
    expect(submit.code, submit.stderr).toBe(0);
    await until('the child’s tool to start', () => (existsSync(marker) ? true : undefined));
    const killed = await cluster.killRunning();
    while (cluster.workers.filter((w) => w.alive()).length < 2) await cluster.addWorker();
    const done = await cluster.resultOf(submit.stdout.trim(), 90_000);
    expect(done.text).toContain(INTERRUPTED_BY_WORKER);

    const spans = await withChildren(traceId, 1);
    // One run, one Agent call, one child (the dead attempts' spans never ended), each under the one before.
    expect(named(spans, 'invoke_agent agentloop').map((s) => s.parentSpanId)).toEqual([spanId]);
    const own = checkNesting(spans, 'k1', ['a'])[0]?.own ?? [];
    // The child's attempt that finished: both model calls (the first replayed) and its tool, answered as interrupted.
    expect(own.map((s) => s.name).sort()).toEqual(['chat claude-test', 'chat claude-test', 'execute_tool bash']);
    expect(own.find((s) => s.name === 'execute_tool bash')?.status.code).toBe('ERROR');
    // Besides, only what the dead attempts finished before the kill: the first model call of the parent and of the
    // child, under their attempts' runs, which never ended.
    const known = new Set(spans.map((s) => s.spanId));
    const orphans = spans.filter((s) => s.parentSpanId !== spanId && !known.has(s.parentSpanId));
    expect(orphans.map((s) => s.name).filter((n) => n !== 'chat claude-test')).toEqual([]);
    expect(killed.length).toBeGreaterThan(0);
    expect(orphans.length).toBeLessThanOrEqual(2);
  }, 180_000);
});
