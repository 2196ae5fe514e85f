/**
 * A durable run with a subagent (issue 38), on a real restate-server: `agentloop submit --agents JSON` gives the run
 * its agents, the model calls the Agent tool, the child (an invocation of its own: durable/children.ts) runs a writing
 * bash command; every worker holding a stream is killed with -9 while the child's next model call is under way (after
 * its tool ran). Another worker replays the child: its model call and tool call come from its journal (the command is
 * not run again, nor the child's first request sent again), the child goes on, and the parent's next request carries
 * the child's answer as the Agent call's result.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTranscript } from '../../src/durable/ingress.js';
import { historyProblems } from '../../src/history/validate.js';
import type { RequestBody, Step } from '../support/messagesServer.js';
import { holdPoint, startCluster } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable subagent tests skipped: ${binary.problem}`);

const AGENTS = { logger: { description: 'Appends to the log', prompt: 'You are the logger agent.', tools: ['Bash'] } };
const isChild = (body: RequestBody) => JSON.stringify(body.system ?? '').includes('You are the logger agent.');
const hasToolResult = (body: RequestBody) => JSON.stringify(body.messages.at(-1)).includes('"tool_result"');
/** The worker's bash tool as the child is offered it (the agent names it `Bash`, its public name). */
const bashName = (body: RequestBody) => (body.tools ?? []).map((tool) => (tool as { name: string }).name).find((name) => name.toLowerCase() === 'bash') ?? 'Bash';
const reply = (text: string): Step => ({ content: [{ type: 'text', text }], stop_reason: 'end_turn' });

describe.skipIf('problem' in binary)('a subagent in a durable run', () => {
  it('is replayed from the journal after its worker is killed: its command ran once, its answer reaches the parent', async () => {
    const cluster = await startCluster((binary as { path: string }).path);
    try {
      let childFollowUps = 0;
      const held = holdPoint();
      const step = (body: RequestBody): Step | Promise<Step> => {
        if (!isChild(body)) {
          if (hasToolResult(body)) return reply('the logger is done');
          const input = { description: 'log once', prompt: 'append x to log', subagent_type: 'logger' };
          return { content: [{ type: 'tool_use', id: 'toolu_agent1', name: 'Agent', input }], stop_reason: 'tool_use' };
        }
        if (!hasToolResult(body)) return { content: [{ type: 'tool_use', id: 'toolu_bash1', name: bashName(body), input: { command: 'echo x >> log' } }], stop_reason: 'tool_use' };
        childFollowUps++;
        if (childFollowUps === 1) return held.hold(); // the child's second model call, under way when its worker is killed
        return reply('appended x to log once');
      };
      for (let i = 0; i < 10; i++) cluster.model.enqueue(step);
      for (let i = 0; i < 3; i++) await cluster.addWorker(); // the parent's and the child's invocations may be on two
      await cluster.register();
      const sessionId = await cluster.submit(['-p', 'have the logger log once', '--agents', JSON.stringify(AGENTS), '--allowedTools', 'Bash']);
      await held.reached;
      expect(readFileSync(join(cluster.dir, 'log'), 'utf8'), 'the child ran its command before the kill').toBe('x\n');
      await cluster.killRunning();
      const done = await cluster.resultOf(sessionId);
      expect(done.context.exitReason).toBe('completed');
      expect(done.text).toBe('the logger is done');
      expect(readFileSync(join(cluster.dir, 'log'), 'utf8'), 'the command ran exactly once').toBe('x\n');
      const bodies = cluster.model.requests.map((r) => r.body as RequestBody);
      const parents = bodies.filter((b) => !isChild(b));
      const children = bodies.filter(isChild);
      expect(parents.filter((b) => !hasToolResult(b)), "the parent's first call came from the journal").toHaveLength(1);
      expect(children.filter((b) => !hasToolResult(b)), "the child's first call came from the journal").toHaveLength(1);
      expect(childFollowUps, 'the held call asked again').toBe(2);
      const last = parents.at(-1) as RequestBody;
      expect(hasToolResult(last)).toBe(true);
      const answer = (last.messages.at(-1)?.content as { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }[]).find((b) => b.type === 'tool_result');
      expect(answer?.tool_use_id).toBe('toolu_agent1');
      expect(answer?.is_error ?? false).toBe(false);
      expect(JSON.stringify(answer?.content)).toContain('appended x to log once');
      expect(JSON.stringify(answer?.content)).toMatch(/agentId: a[0-9a-f]{16}/);
      for (const body of bodies) expect(historyProblems(body.messages)).toEqual([]);
      // The session's records keep the child once, as a local transcript does (agent_start, its records, agent_end).
      const records = await runTranscript(cluster.restate.ingress, sessionId);
      expect(records.filter((r) => r.type === 'agent_start')).toHaveLength(1);
      expect(records.filter((r) => r.type === 'agent_end')).toMatchObject([{ state: 'done', text: 'appended x to log once' }]);
    } finally {
      await cluster.close();
    }
  }, 120_000);
});
