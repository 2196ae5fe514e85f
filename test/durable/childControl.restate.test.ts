/**
 * What a durable run's rules and its cancel do to its subagents (issue 38), on a real restate-server: a child's call
 * the mode asks about waits on an awakeable in the child's invocation, `agentloop approvals` lists it under the
 * parent's session (and by `view --restate`, which reads the running child's records from its own state), and
 * `agentloop approve` lets the child go on; a cancel of the parent's invocation (Restate's admin
 * API) while its two children wait for the model cancels the children too, and the parent's run ends aborted, its
 * history valid, without another request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSession } from '../../src/durable/admin.js';
import { withRunningChildren } from '../../src/durable/childView.js';
import { SERVICE_NAME } from '../../src/durable/protocol.js';
import { historyProblems } from '../../src/history/validate.js';
import { startCli } from '../support/cli.js';
import { adminQuery, AGENTS, bodiesOf, scriptedCluster, senderOf, type Hold, type Script } from './childScript.js';
import { type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable subagent tests skipped: ${binary.problem}`);

describe.skipIf('problem' in binary)('subagents of a durable run under its rules', () => {
  let cluster: Cluster;
  let script: Script;
  let hold: Hold = () => false;

  beforeAll(async () => {
    ({ cluster, script } = await scriptedCluster((binary as { path: string }).path, 2, 100, (child, point) => hold(child, point)));
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
  });


  it("lists a child's call asked about under the parent's session, and runs it once approved", async () => {
    const sessionId = await cluster.submit(['-p', 'case ap: a', '--agents', JSON.stringify(AGENTS), '--permission-mode', 'default']);
    const line = await until('the child\'s call to be listed', async () => {
      const listed = await cluster.cli(['approvals', ...cluster.flags]);
      return listed.stdout.split('\n').find((l) => l.startsWith(`${sessionId}  `));
    }, 60_000, 500);
    const [, toolUseId, , ...call] = line.split('  ');
    expect([toolUseId, call.join('  ')]).toEqual(['toolu_bash_ap-a', '$ echo x >> log-ap-a']);
    // A reader of the running session sees the child's records so far (from the child's own state) and its waiting call.
    const live = await withRunningChildren({ admin: cluster.restate.admin }, sessionId, await readSession({ admin: cluster.restate.admin }, SERVICE_NAME, sessionId));
    expect(live.state).toBe('running');
    expect(live.state === 'running' && live.waiting.map((w) => w.toolUseId)).toEqual(['toolu_bash_ap-a']);
    const childRecords = live.state === 'running' ? live.records.filter((r) => r.type === 'agent') : [];
    expect(JSON.stringify(childRecords)).toContain('append x to log ap-a');
    expect(childRecords.map((r) => (r as { record: { type: string } }).record.type)).toContain('tool_start');
    const view = startCli(['view', '--restate', cluster.restate.ingress, '--admin', cluster.restate.admin, '--port', '0', sessionId], { cwd: cluster.dir, env: cluster.env });
    try {
      const said = await until('view to say the child\'s waiting call', () => /^waiting for approval since .+: \$ echo x >> log-ap-a \(toolu_bash_ap-a\); .+$/m.exec(view.output().stderr)?.[0], 30_000);
      expect(said).toContain(`approve ${sessionId} toolu_bash_ap-a`);
    } finally {
      view.child.kill('SIGINT');
      await view.done;
    }
    const approved = await cluster.cli(['approve', sessionId, toolUseId as string, ...cluster.flags]);
    expect([approved.code, approved.stderr]).toEqual([0, `approved: $ echo x >> log-ap-a (session ${sessionId}, toolu_bash_ap-a)\n`]);
    const done = await cluster.resultOf(sessionId, 60_000);
    expect(done.text).toBe('the loggers are done');
    expect(readFileSync(join(cluster.dir, 'log-ap-a'), 'utf8')).toBe('x\n');
    const listed = await cluster.cli(['approvals', ...cluster.flags]);
    expect(listed.stdout).not.toContain(sessionId);
  }, 120_000);

  it("cancels the children with their parent, whose run ends aborted", async () => {
    hold = (child, point) => child.startsWith('cx-') && point === 'first request';
    const sessionId = await cluster.submit(['-p', 'case cx: a b', '--agents', JSON.stringify(AGENTS), '--allowedTools', 'Bash']);
    await script.reached(['cx-a', 'cx-b'], 'first request');
    const [parent] = await adminQuery<{ id: string }>(cluster, `SELECT id FROM sys_invocation WHERE target_service_name = 'AgentSession' AND target_service_key = '${sessionId}' AND status <> 'completed'`);
    const cancelled = await fetch(new URL(`/invocations/${parent?.id}/cancel`, cluster.restate.admin), { method: 'PATCH' });
    expect(cancelled.status, await cancelled.text()).toBeLessThan(300);

    const children = await until('both children to end', async () => {
      const rows = await adminQuery<{ key: string; status: string }>(cluster, `SELECT target_service_key AS key, status FROM sys_invocation WHERE target_service_name = 'AgentChild' AND target_service_key LIKE '${sessionId}/%'`);
      return rows.length === 2 && rows.every((r) => r.status === 'completed') ? rows : undefined;
    }, 60_000, 200);
    expect(children).toHaveLength(2);
    const done = await cluster.resultOf(sessionId, 60_000);
    expect([done.state, done.context.exitReason]).toEqual(['aborted', 'aborted']);
    for (const message of [done.context.messages]) expect(historyProblems(message)).toEqual([]);
    // The parent's first request and each child's: nothing was asked after the cancel.
    expect(bodiesOf(cluster, 'cx').map(senderOf).sort()).toEqual(['cx-a', 'cx-b', 'parent cx']);
  }, 120_000);
});
