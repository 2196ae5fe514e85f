/**
 * Several workers, as docs/durable.md says to run them: the page's recipe, line by line (its ports
 * swapped for free ones), with the CLI as processes and the real restate-server; then a worker
 * frozen with SIGSTOP mid-run loses the run to another within a minute (the balancer drops it in
 * seconds). And a second worker registered under another address where no balancer is is refused
 * with a line that says how to put workers behind one address.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_BY_WORKER } from '../../src/durable/journal.js';
import { balancerBackends } from '../../src/durable/pool.js';
import { answerFromResults, bashUse, lastToolResults, startCheckedServer, firstPrompt } from '../support/agentServer.js';
import { cliEnv, runCli, SELF, startCli } from '../support/cli.js';
import type { MessagesServer, Step, StepFn } from '../support/messagesServer.js';
import { freePort, restateBinary, startRestateServer, type RestateServer } from './restateServer.js';

const binary = restateBinary();
if ('problem' in binary) console.warn(`durable pool tests skipped: ${binary.problem}`);

const PAGE = fileURLToPath(new URL('../../docs/durable.md', import.meta.url));

/** The recipe's command lines: the shell block after its marker, without comments and `&`. */
function recipe(page: string): string[] {
  const from = page.indexOf('<!-- recipe: several workers on one machine -->');
  const block = /```sh\n([\s\S]*?)```/.exec(page.slice(from))?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').replace(/\s*&\s*$/, '').trim())
    .filter((line) => line !== '');
}

/** A command line's words (double quotes only, as the recipe writes them). */
const words = (line: string) => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? (m[2] as string));

/** The page's failover example: its submit's command line. */
function failoverExample(page: string): string {
  const from = page.indexOf('<!-- example: failover -->');
  return /```sh\n([\s\S]*?)```/.exec(page.slice(from))?.[1]?.trim() ?? '';
}

/** `run this command: COMMAND` runs COMMAND, as a model would; anything else is answered at once. */
const agent: StepFn = (body, index): Step => {
  if (lastToolResults(body).length > 0) return answerFromResults;
  const command = /^run this command: (.+)$/.exec(firstPrompt(body));
  if (command) return { content: [bashUse(`toolu_${index}`, command[1] as string)], stop_reason: 'tool_use' };
  return { content: [{ type: 'text', text: `answer to ${firstPrompt(body)}` }], stop_reason: 'end_turn' };
};

/** The pid of the process whose descendant runs `sleep 60`, among `pids`. */
function runningTool(pids: number[]): number | undefined {
  const parent = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[1]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline !== 'sleep\u000060\u0000') continue;
    for (let pid = Number(entry); pid > 1; ) {
      if (pids.includes(pid)) return pid;
      try {
        pid = parent(pid);
      } catch {
        break;
      }
    }
  }
  return undefined;
}

describe.skipIf('problem' in binary)('several workers', () => {
  let restate: RestateServer | undefined;
  let model: MessagesServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const processes: Array<ReturnType<typeof startCli>> = [];

  beforeAll(async () => {
    model = await startCheckedServer();
    for (let i = 0; i < 50; i++) model.enqueue(agent);
    dir = mkdtempSync(join(tmpdir(), 'agentloop-pool-'));
    env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-pool', ANTHROPIC_BASE_URL: model.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(dir, '.home') });
  }, 60_000);

  afterAll(async () => {
    for (const p of processes) {
      if (p.child.pid && p.child.exitCode === null) process.kill(p.child.pid, 'SIGCONT');
      p.child.kill('SIGKILL');
    }
    await Promise.all([restate?.close(), model?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a serving command and waits for `ready` in what it printed. */
  async function serve(args: string[], ready: RegExp) {
    const proc = startCli(args, { cwd: dir, env });
    processes.push(proc);
    const deadline = Date.now() + 40_000;
    while (!ready.test(proc.output().stderr + proc.output().stdout)) {
      if (proc.child.exitCode !== null || Date.now() > deadline) throw new Error(`${args.join(' ')}: ${JSON.stringify(proc.output())}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return proc;
  }

  it('refuses a second worker under another address when no balancer serves them', async () => {
    const server = await startRestateServer((binary as { path: string }).path);
    try {
      const first = await serve(['worker', '--port', '0', '--register', server.admin], /^registered /m);
      const firstUrl = first.output().stdout.trim();
      const second = startCli(['worker', '--port', '0', '--register', server.admin], { cwd: dir, env });
      processes.push(second);
      const refused = await second.done;
      expect(refused.code).toBe(1);
      // The balancer it offers takes a port that is free and is not the first worker's (test/cli/hintsDurable.restate.test.ts runs it).
      const port = /balancer --port (\d+) /.exec(refused.stderr)?.[1];
      expect(port).not.toBe(new URL(firstUrl).port);
      expect(refused.stderr.split('\n').filter((l) => l.startsWith('agentloop:'))).toEqual([
        `agentloop: AgentSession is already served at ${firstUrl} (deployment ${/deployment (dp_\w+)/.exec(first.output().stderr)?.[1]}), ` +
          `and Restate sends each run to one address for good, so workers share one: put them behind a balancer ` +
          `(${SELF} balancer --port ${port} --backend ${firstUrl} --register ${server.admin} --replace, then this worker's command again: ` +
          `it joins the balancer; see docs/durable.md), or register this worker in its place with --replace`,
      ]);
      first.child.kill('SIGTERM');
      await first.done;
    } finally {
      await server.close();
    }
  }, 120_000);

  it("runs docs/durable.md's recipe as written, and its failover example as the page says", async () => {
    const page = readFileSync(PAGE, 'utf8');
    const lines = recipe(page);
    expect(lines.map((l) => words(l).slice(0, 2).join(' '))).toEqual([
      'npx restate-server',
      'agentloop worker',
      'agentloop worker',
      'agentloop balancer',
      'agentloop worker',
      'agentloop submit',
    ]);
    restate = await startRestateServer((binary as { path: string }).path);
    const ports = new Map<string, string>([
      ['8080', new URL(restate.ingress).port],
      ['9070', new URL(restate.admin).port],
    ]);
    for (const port of ['9080', '9081', '9082', '9083']) ports.set(port, String(await freePort()));
    const local = (line: string) => words(line.replace(/\b(8080|9070|908[0-3])\b/g, (p) => ports.get(p) as string)).slice(1);

    const workers: Array<ReturnType<typeof startCli>> = [];
    let submitted;
    let balancerProcess: ReturnType<typeof startCli> | undefined;
    for (const line of lines.slice(1)) {
      const args = local(line);
      if (args[0] === 'worker') workers.push(await serve(args, args.includes('--register') ? /^joined the workers of the balancer/m : /^http:\/\//m));
      else if (args[0] === 'balancer') balancerProcess = await serve(args, /^registered /m);
      else submitted = await runCli(args, { cwd: dir, env });
    }
    expect(submitted?.code).toBe(0);
    expect(JSON.parse(submitted?.stdout ?? '')).toMatchObject({ subtype: 'success', result: 'answer to list the files here' });
    const balancer = `http://127.0.0.1:${ports.get('9080')}`;
    expect(await balancerBackends(balancer)).toEqual(['9081', '9082', '9083'].map((p) => `http://127.0.0.1:${ports.get(p)}`));

    // The failover example on one of the three; its worker frozen mid-command.
    const example = failoverExample(page);
    expect(words(example).slice(0, 3)).toEqual(['agentloop', 'submit', '-p']);
    const flags = ['--restate', restate.ingress, '--admin', restate.admin];
    const id = (await runCli(local(example), { cwd: dir, env })).stdout.trim();
    // The tool has started once its `sleep 300` runs under one of the workers.
    const pids = workers.map((w) => w.child.pid as number);
    const deadline = Date.now() + 30_000;
    let holder = runningTool(pids);
    while (holder === undefined && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      holder = runningTool(pids);
    }
    expect(holder, 'a worker runs the tool').toBeDefined();
    process.kill(holder as number, 'SIGSTOP');
    const stopped = Date.now();
    let result = await runCli(['result', id, ...flags], { cwd: dir, env });
    while (result.code === 3 && Date.now() - stopped < 70_000) result = await runCli(['result', id, ...flags], { cwd: dir, env });
    const took = Date.now() - stopped;
    expect(result.code, `${result.stdout} ${result.stderr}`).toBe(0);
    expect(took, `the run moved after ${took} ms`).toBeLessThan(60_000);
    // As the page says: answered "interrupted", not run again (one date), and the balancer said so.
    expect(JSON.parse(result.stdout)).toMatchObject({ result: `Results: ${INTERRUPTED_BY_WORKER}` });
    expect(readFileSync(join(dir, 'failover.txt'), 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    expect(balancerProcess?.output().stderr).toMatch(/does not answer: taken out/);
    expect(model.violations).toEqual([]);
  }, 180_000);
});
