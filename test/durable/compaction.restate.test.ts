/**
 * A durable run compacts like any run, and its compaction call is journalled like any model call (issue 42): on a real
 * restate-server, the model runs one command, the API refuses the next request as too long (a history of the one
 * question is not compacted: nothing to summarize), the worker compacts (one summary request) and sends
 * the turn again; killed with -9 while that request is under way, the run is replayed on another worker, which takes
 * the summary from the journal: the server never sees a second summary request, and the run finishes.
 */
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { isSummaryBody } from '../support/compaction.js';
import type { RequestBody, Step } from '../support/messagesServer.js';
import { holdPoint, startCluster, type Cluster } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable compaction tests skipped: ${binary.problem}`);

const compacted = (body: RequestBody) => JSON.stringify(body.messages[0]).includes('This session is being continued');
/** The first request (the question alone) gets a read-only command, so the refused history has an exchange to compact. */
const firstTurn = (body: RequestBody): Step | undefined =>
  body.messages.length === 1 ? { content: [{ type: 'tool_use', id: 'toolu_c1', name: 'bash', input: { command: 'echo hi' } }], stop_reason: 'tool_use' } : undefined;
const TOO_LONG: Step = { error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } };

/**
 * The run of 'answer briefly' on two workers whose model answers with `step`; the worker holding it killed once `held`
 * is reached; its result, checked to be the short answer.
 */
async function killedWhileHeld(cluster: Cluster, step: (body: RequestBody) => Step | Promise<Step>, held: ReturnType<typeof holdPoint>) {
  for (let i = 0; i < 20; i++) cluster.model.enqueue(step);
  await cluster.addWorker();
  await cluster.addWorker();
  await cluster.register();
  const sessionId = await cluster.submit(['-p', 'answer briefly']);
  await held.reached;
  expect(await cluster.killRunning(), 'the run is on one worker').toHaveLength(1);
  const done = await cluster.resultOf(sessionId);
  expect(done.context.exitReason).toBe('completed');
  expect(done.text).toBe('short answer');
  return done;
}

describe.skipIf('problem' in binary)('compaction in a durable run', () => {
  it('replays a run killed after its compaction without summarizing again', async () => {
    const cluster = await startCluster((binary as { path: string }).path);
    try {
      let afterBoundary = 0;
      const held = holdPoint();
      const step = (body: RequestBody): Step | Promise<Step> => {
        if (isSummaryBody(body)) return { content: [{ type: 'text', text: '<summary>the user asked for a short answer</summary>' }], stop_reason: 'end_turn' };
        if (!compacted(body)) return firstTurn(body) ?? TOO_LONG;
        afterBoundary++;
        if (afterBoundary === 1) return held.hold(); // under way when the worker is killed
        return { content: [{ type: 'text', text: 'short answer' }], stop_reason: 'end_turn' };
      };
      const done = await killedWhileHeld(cluster, step, held);
      const bodies = cluster.model.requests.map((r) => r.body as RequestBody);
      // The first turn, one refused request, one summary, the compacted turn twice (the held one never answered): no
      // second summary, and neither the first turn nor the refusal asked again.
      expect(bodies.filter(isSummaryBody)).toHaveLength(1);
      expect(bodies.filter((b) => !isSummaryBody(b) && !compacted(b))).toHaveLength(2);
      expect(afterBoundary).toBe(2);
      expect(JSON.stringify(done.context.messages[0])).toContain('the user asked for a short answer');
      for (const body of bodies) expect(historyProblems(body.messages)).toEqual([]);
    } finally {
      await cluster.close();
    }
  }, 120_000);

  it('resumes a run killed during its compaction call: the summary asked once more, the run finishes with one boundary', async () => {
    const cluster = await startCluster((binary as { path: string }).path);
    try {
      let summaries = 0;
      const held = holdPoint();
      const step = (body: RequestBody): Step | Promise<Step> => {
        if (isSummaryBody(body)) {
          summaries++;
          if (summaries === 1) return held.hold(); // the compaction call under way when the worker is killed
          return { content: [{ type: 'text', text: '<summary>asked for a short answer</summary>' }], stop_reason: 'end_turn' };
        }
        if (!compacted(body)) return firstTurn(body) ?? TOO_LONG;
        return { content: [{ type: 'text', text: 'short answer' }], stop_reason: 'end_turn' };
      };
      const done = await killedWhileHeld(cluster, step, held);
      expect(summaries).toBe(2);
      const bodies = cluster.model.requests.map((r) => r.body as RequestBody);
      expect(bodies.filter((b) => !isSummaryBody(b) && !compacted(b)), 'the first turn and the refusal came from the journal').toHaveLength(2);
      expect(done.context.compaction.count).toBe(1);
    } finally {
      await cluster.close();
    }
  }, 120_000);
});
