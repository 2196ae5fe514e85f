/**
 * A durable run is judged as every other host's run (issue 43): with no permission flag its mode is `default`, so a
 * call that is neither read-only nor allowed by a rule waits for an approval, also on a worker started with no flag,
 * as root without IS_SANDBOX. bypassPermissions comes only from a flag (submit's or the worker's), and as root only
 * with IS_SANDBOX=1 (permissions/root.ts): submit and worker refuse it in one line (exit 2), and a worker outside a
 * sandbox refuses a run that asks for it from a submitter inside one. As root and as nobody (who may bypass).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerFromResults, bashUse, firstPrompt, lastToolResults } from '../support/agentServer.js';
import type { Step, StepFn } from '../support/messagesServer.js';
import { startCli } from '../support/cli.js';
import { testUsers } from '../support/users.js';
import { startCluster, type Cluster, until } from './cluster.js';
import { restateBinary } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable default-mode tests skipped: ${binary.problem}`);

/** `do: COMMAND` runs COMMAND, then answers with what it gave. */
const agent: StepFn = (body, index): Step => {
  if (lastToolResults(body).length > 0) return answerFromResults;
  const command = /^do: (.+)$/.exec(firstPrompt(body))?.[1] ?? 'true';
  return { content: [bashUse(`toolu_d${index}`, command)], stop_reason: 'tool_use' };
};

const BYPASS_REFUSED = 'agentloop: --permission-mode bypassPermissions cannot be used with root/sudo privileges for security reasons (unless IS_SANDBOX=1)\n';

describe.skipIf('problem' in binary).each(testUsers())('a durable run with no permission flag (as $name)', (user) => {
  let cluster: Cluster;
  /** The cluster's environment without IS_SANDBOX (cliEnv sets it). */
  let outside: NodeJS.ProcessEnv;
  const asRoot = process.getuid?.() === 0 && user.prefix.length === 0;

  const cli = (args: string[], env: NodeJS.ProcessEnv) => startCli(args, { cwd: cluster.dir, env, prefix: cluster.prefix, input: '' }).done;
  const result = async (id: string) => {
    const done = await until(`session ${id} to end`, async () => {
      const run = await cluster.cli(['result', id, ...cluster.flags]);
      return run.code === 3 ? undefined : run;
    }, 90_000, 500);
    return done;
  };

  beforeAll(async () => {
    if (user.skip) return;
    cluster = await startCluster((binary as { path: string }).path, { user });
    for (let i = 0; i < 20; i++) cluster.model.enqueue(agent);
    outside = { ...cluster.env };
    delete outside.IS_SANDBOX;
    await cluster.addWorker([], outside);
    await cluster.register();
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
  });

  it.skipIf(user.skip !== undefined)('waits for an approval: touch is listed by approvals and has not run; approved, it runs', async () => {
    const made = join(cluster.dir, 'waits.txt');
    const submitted = await cli(['submit', '-p', 'do: touch waits.txt', ...cluster.flags], outside);
    expect([submitted.code, submitted.stderr]).toEqual([0, expect.stringMatching(/^submitted/)]);
    const id = submitted.stdout.trim();
    const line = await until('the call to be listed', async () => {
      const listed = await cluster.cli(['approvals', ...cluster.flags]);
      return listed.stdout.split('\n').find((l) => l.startsWith(`${id}  `));
    }, 30_000, 500);
    const [, toolUseId, , ...call] = line.split('  ');
    expect(call.join('  ')).toBe('$ touch waits.txt');
    expect(existsSync(made), 'touch ran unapproved').toBe(false);
    const approved = await cluster.cli(['approve', id, toolUseId as string, ...cluster.flags]);
    expect(approved.code, approved.stderr).toBe(0);
    expect((await result(id)).code).toBe(0);
    expect(existsSync(made)).toBe(true);
  }, 120_000);

  it.skipIf(user.skip !== undefined)('bypassPermissions: refused in one line as root without IS_SANDBOX, by submit and by worker', async () => {
    const submitted = await cli(['submit', '-p', 'do: touch bypassed.txt', '--permission-mode', 'bypassPermissions', ...cluster.flags], outside);
    const worker = await cli(['worker', '--port', '0', '--cwd', cluster.dir, '--permission-mode', 'bypassPermissions', '--register', 'http://127.0.0.1:9'], outside);
    if (asRoot) {
      expect([submitted.code, submitted.stdout, submitted.stderr]).toEqual([2, '', BYPASS_REFUSED]);
      expect([worker.code, worker.stdout, worker.stderr]).toEqual([2, '', BYPASS_REFUSED]);
      return;
    }
    // nobody may bypass outside a sandbox, as in Claude Code: the run goes on, and the worker gets as far as registering.
    expect(submitted.code, submitted.stderr).toBe(0);
    expect((await result(submitted.stdout.trim())).code).toBe(0);
    expect(existsSync(join(cluster.dir, 'bypassed.txt'))).toBe(true);
    expect(worker.stderr).toMatch(/cannot reach|ECONNREFUSED/);
  }, 120_000);

  it.skipIf(user.skip !== undefined || !asRoot)('as root, a worker outside a sandbox refuses a bypass run submitted from inside one; with IS_SANDBOX=1 it runs', async () => {
    const refused = await cli(['submit', '-p', 'do: touch refused.txt', '--permission-mode', 'bypassPermissions', ...cluster.flags, '--wait'], cluster.env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/bypassPermissions cannot be used with root\/sudo privileges/);
    expect(existsSync(join(cluster.dir, 'refused.txt'))).toBe(false);

    await cluster.workers[0]?.kill('SIGKILL');
    await cluster.addWorker([], cluster.env);
    const ran = await cli(['submit', '-p', 'do: touch sandboxed.txt', '--permission-mode', 'bypassPermissions', ...cluster.flags, '--wait'], cluster.env);
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(join(cluster.dir, 'sandboxed.txt'))).toBe(true);
    expect(cluster.model.violations).toEqual([]);
  }, 120_000);
});
