/**
 * Durable runs under rules, against the real restate-server (issue 43 items 3-4): a worker's --disallowedTools is a
 * floor no run lifts, bypassPermissions included (as root with IS_SANDBOX=1, and as nobody); a run in the default
 * mode whose model calls `touch` waits on a Restate awakeable, is listed by `agentloop approvals`, costs no worker
 * while it waits (Restate suspends it), survives a kill -9 of its worker, a server restart and a new worker, and runs
 * once `agentloop approve` is given; `deny --reason` (here through the library's denyCall) and --approval-timeout deny
 * it with a reason the model gets.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSession } from '../../src/durable/admin.js';
import { SERVICE_NAME } from '../../src/durable/protocol.js';
import { denyCall, listApprovals } from '../../src/index.js';
import { answerFromResults, bashUse, firstPrompt, lastToolResults } from '../support/agentServer.js';
import type { Step, StepFn } from '../support/messagesServer.js';
import { startCli } from '../support/cli.js';
import { testUsers } from '../support/users.js';
import { startCluster, type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable approval tests skipped: ${binary.problem}`);

/** `do: COMMAND` runs COMMAND, then answers with what it gave. */
const agent: StepFn = (body, index): Step => {
  if (lastToolResults(body).length > 0) return answerFromResults;
  const command = /^do: (.+)$/.exec(firstPrompt(body))?.[1] ?? 'true';
  return { content: [bashUse(`toolu_a${index}`, command)], stop_reason: 'tool_use' };
};

async function submit(cluster: Cluster, prompt: string, flags: string[]): Promise<string> {
  const run = await cluster.cli(['submit', '-p', prompt, ...flags, ...cluster.flags]);
  expect([run.code, run.stderr]).toEqual([0, expect.stringMatching(/^submitted/)]);
  return run.stdout.trim();
}

/** The result's text once the run is done (`result` polled). */
async function resultOf(cluster: Cluster, id: string): Promise<{ result: string; is_error: boolean; permission_denials: unknown[] }> {
  const done = await until(`session ${id} to end`, async () => {
    const run = await cluster.cli(['result', id, ...cluster.flags]);
    return run.code === 3 ? undefined : run;
  }, 90_000, 500);
  expect(done.code, done.stderr).toBe(0);
  return JSON.parse(done.stdout) as { result: string; is_error: boolean; permission_denials: unknown[] };
}

describe.skipIf('problem' in binary).each(testUsers())('a worker started with --disallowedTools (as $name)', (user) => {
  let cluster: Cluster;

  beforeAll(async () => {
    if (user.skip) return;
    cluster = await startCluster((binary as { path: string }).path, { user });
    for (let i = 0; i < 10; i++) cluster.model.enqueue(agent);
    await cluster.addWorker(['--disallowedTools', 'Bash(rm:*)']);
    await cluster.register();
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
  });

  it.skipIf(user.skip !== undefined)('keeps rm from running in a run submitted with bypassPermissions; other commands run', async () => {
    const victim = join(cluster.dir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    const denied = await submit(cluster, 'do: rm -f victim.txt', ['--permission-mode', 'bypassPermissions', '--disallowedTools', 'Bash(curl:*)']);
    const result = await resultOf(cluster, denied);
    expect(result.result).toBe('Results: Not run: denied by rule Bash(rm:*)');
    // As -p lists them: the gate's denial is in the run's records.
    expect(result.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: expect.stringMatching(/^toolu_a\d+$/), tool_input: { command: 'rm -f victim.txt' } }]);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    const ran = await submit(cluster, 'do: touch made.txt', ['--permission-mode', 'bypassPermissions']);
    expect((await resultOf(cluster, ran)).result).not.toMatch(/Not run/);
    expect(existsSync(join(cluster.dir, 'made.txt'))).toBe(true);
  }, 120_000);
});

describe.skipIf('problem' in binary)('a run that must ask waits durably', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster((binary as { path: string }).path);
    for (let i = 0; i < 20; i++) cluster.model.enqueue(agent);
    await cluster.addWorker();
    await cluster.register();
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
  });

  it('is listed, costs no worker, survives kill -9 of its worker and a server restart, and runs once approved', async () => {
    const made = join(cluster.dir, 'approved.txt');
    const id = await submit(cluster, 'do: touch approved.txt', ['--permission-mode', 'default']);
    const line = await until('the call to be listed', async () => {
      const listed = await cluster.cli(['approvals', ...cluster.flags]);
      return listed.stdout.split('\n').find((l) => l.startsWith(`${id}  `));
    }, 60_000, 500);
    const [, toolUseId, since, ...call] = line.split('  ');
    expect([toolUseId, call.join('  ')]).toEqual([expect.stringMatching(/^toolu_a\d+$/), '$ touch approved.txt']);
    expect(Number.isNaN(Date.parse(since as string))).toBe(false);
    // view --restate says which call waits and how to answer it.
    const view = startCli(['view', '--restate', cluster.restate.ingress, '--admin', cluster.restate.admin, '--port', '0', id], { cwd: cluster.dir, env: cluster.env });
    try {
      const said = await until('view to say the waiting call', () => /^waiting for approval since .+: \$ touch approved\.txt \(toolu_a\d+\); .+ approve .+$/m.exec(view.output().stderr)?.[0], 30_000);
      expect(said).toContain(`approve ${id} ${toolUseId}`);
    } finally {
      view.child.kill('SIGINT');
      await view.done;
    }
    // While it waits, Restate holds it suspended: no worker runs it.
    await until('the run to be suspended', async () => {
      const view = await readSession({ admin: cluster.restate.admin }, SERVICE_NAME, id);
      return view.state === 'running' && view.run.status === 'suspended' ? true : undefined;
    }, 60_000, 500);

    await cluster.workers[0]?.kill('SIGKILL');
    await cluster.restate.restart('SIGKILL');
    await cluster.addWorker();
    // (Right after its restart the server may not answer queries for a moment: exit 1, "could not be reached".)
    const target = { restate: cluster.restate.ingress, admin: cluster.restate.admin };
    const after = await until('the list after the restart', async () => (await listApprovals(target).catch(() => undefined))?.map((c) => c.toolUseId), 30_000, 500);
    expect(after).toEqual([toolUseId]);
    expect(existsSync(made), 'the call ran unapproved').toBe(false);

    const approved = await until('approve to reach Restate', async () => {
      const run = await cluster.cli(['approve', id, toolUseId as string, ...cluster.flags]);
      return run.code === 1 ? undefined : run;
    }, 30_000, 500);
    expect([approved.code, approved.stderr]).toEqual([0, `approved: $ touch approved.txt (session ${id}, ${toolUseId})\n`]);
    expect((await resultOf(cluster, id)).result).not.toMatch(/Not run/);
    expect(existsSync(made)).toBe(true);
    expect((await cluster.cli(['approvals', ...cluster.flags])).stdout).toBe('');
    expect(cluster.model.violations).toEqual([]);
  }, 240_000);

  it('is denied with the reason the model gets: by the library, and by --approval-timeout', async () => {
    const target = { restate: cluster.restate.ingress, admin: cluster.restate.admin };
    const id = await submit(cluster, 'do: touch denied.txt', ['--permission-mode', 'default']);
    const waiting = await until('the call to wait', async () => (await listApprovals(target)).find((c) => c.sessionId === id), 60_000, 500);
    expect(await denyCall(target, id, waiting.toolUseId, 'not on a Sunday')).toMatchObject({ call: '$ touch denied.txt' });
    expect((await resultOf(cluster, id)).result).toBe('Results: Not run: not on a Sunday');

    const timed = await submit(cluster, 'do: touch late.txt', ['--permission-mode', 'default', '--approval-timeout', '2']);
    expect((await resultOf(cluster, timed)).result).toBe('Results: Not run: not approved within 2 s: denied');
    expect([existsSync(join(cluster.dir, 'denied.txt')), existsSync(join(cluster.dir, 'late.txt'))]).toEqual([false, false]);

    const none = await cluster.cli(['approve', id, 'toolu_none', ...cluster.flags]);
    expect([none.code, none.stdout]).toEqual([2, '']);
    expect(none.stderr).toMatch(new RegExp(`^agentloop: no call toolu_none of session ${id} waits for approval \\(see .+ approvals\\)\\n$`));
  }, 180_000);
});
