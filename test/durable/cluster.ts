/**
 * What the durable tests run against: a real restate-server, a local Messages API server that
 * refuses invalid histories, and `agentloop worker` processes (the CLI as shipped) behind one
 * HTTP/2 balancer address (src/durable/balancer.ts), registered once with the server's admin API.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { registerDeployment } from '../../src/durable/worker.js';
import { startCheckedServer } from '../support/agentServer.js';
import { cliEnv, startCli, type CliRun } from '../support/cli.js';
import type { TestUser } from '../support/users.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { startBalancer, type Balancer } from '../../src/durable/balancer.js';
import { runStatus } from '../../src/durable/ingress.js';
import type { DurableRunResult } from '../../src/durable/protocol.js';
import { startRestateServer, type RestateServer } from './restateServer.js';

export interface WorkerProcess {
  url: string;
  pid: number;
  alive(): boolean;
  kill(signal?: NodeJS.Signals): Promise<void>;
  output(): { stdout: string; stderr: string };
}

export interface Cluster {
  restate: RestateServer;
  model: MessagesServer;
  balancer: Balancer;
  /** Working directory of the workers' tools. */
  dir: string;
  env: NodeJS.ProcessEnv;
  workers: WorkerProcess[];
  /** `--restate INGRESS --admin ADMIN`, for the client commands. */
  flags: string[];
  /** What runs a program as the cluster's user (options.user): the workers and `cli` run through it. */
  prefix: string[];
  /** Starts a worker and puts it behind the balancer (`env`: its environment, default the cluster's). */
  addWorker(flags?: string[], env?: NodeJS.ProcessEnv): Promise<WorkerProcess>;
  /** Registers the balancer's address as the deployment (once the workers are up). */
  register(): Promise<void>;
  cli(args: string[]): Promise<CliRun>;
  /** `agentloop submit ARGS --restate … --admin …`: the session id it printed (it must exit 0). */
  submit(args: string[]): Promise<string>;
  /**
   * Kills with SIGKILL every live worker that holds a stream open through the balancer (the run's, and its children's:
   * each its own invocation); throws when none does, or when no worker would be left. The killed workers.
   */
  killRunning(): Promise<WorkerProcess[]>;
  /** The result of session `sessionId`'s run, once it is done (read through the ingress: a live worker answers). */
  resultOf(sessionId: string, timeoutMs?: number): Promise<DurableRunResult>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  /** The balancer pings its workers and drops one that does not answer (as `agentloop balancer` does); default: a plain proxy. */
  pings?: boolean;
  /** Who runs the workers and the client commands (test/support/users.ts); the working directory is theirs. Default: this process's user. */
  user?: Pick<TestUser, 'prefix' | 'owner'>;
}

export async function startCluster(binary: string, options: ClusterOptions = {}): Promise<Cluster> {
  const [restate, model, balancer] = await Promise.all([startRestateServer(binary), startCheckedServer(), startBalancer({ backends: [], port: 0, pingIntervalMs: options.pings ? 500 : 0, pingTimeoutMs: 1000 })]);
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-durable-'));
  const prefix = options.user?.prefix ?? [];
  if (options.user?.owner !== undefined) {
    chmodSync(dir, 0o755);
    execFileSync('chown', ['-R', options.user.owner, dir]);
  }
  const env = cliEnv({
    ANTHROPIC_API_KEY: `sk-ant-test-${randomUUID()}`,
    ANTHROPIC_BASE_URL: model.url,
    MODEL_ID: 'claude-test',
    AGENTLOOP_HOME: join(dir, '.home'),
    RESTATE_LOGGING: 'WARN',
  });
  const workers: WorkerProcess[] = [];
  const cluster: Cluster = {
    restate,
    model,
    balancer,
    dir,
    env,
    workers,
    flags: ['--restate', restate.ingress, '--admin', restate.admin],
    prefix,
    async addWorker(flags: string[] = [], workerEnv = env) {
      const proc = startCli(['worker', '--port', '0', '--cwd', dir, ...flags], { cwd: dir, env: workerEnv, prefix });
      const url = await new Promise<string>((resolve, reject) => {
        // A worker with MCP servers answers once they have connected or failed (starting one through tsx takes seconds under load).
        const timer = setTimeout(() => reject(new Error(`worker did not start: ${JSON.stringify(proc.output())}`)), 45_000);
        const check = () => {
          const line = /^(http:\/\/\S+)\n/.exec(proc.output().stdout);
          if (line) {
            clearTimeout(timer);
            resolve(line[1] as string);
          }
        };
        proc.child.stdout?.on('data', check);
        proc.child.on('exit', () => reject(new Error(`worker exited: ${JSON.stringify(proc.output())}`)));
      });
      const worker: WorkerProcess = {
        url,
        pid: proc.child.pid as number,
        output: proc.output,
        alive: () => proc.child.exitCode === null && proc.child.signalCode === null,
        async kill(signal = 'SIGKILL') {
          if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
          proc.child.kill(signal);
          await proc.done;
        },
      };
      workers.push(worker);
      balancer.setBackends(workers.filter((w) => w.alive()).map((w) => w.url));
      return worker;
    },
    async register() {
      await registerDeployment(restate.admin, balancer.url, { replace: true });
    },
    cli: (args) => startCli(args, { cwd: dir, env, prefix, input: '' }).done,
    async submit(args) {
      const submitted = await cluster.cli(['submit', ...args, ...cluster.flags]);
      if (submitted.code !== 0) throw new Error(`submit exited ${submitted.code}: ${submitted.stderr}`);
      return submitted.stdout.trim();
    },
    async killRunning() {
      const live = workers.filter((w) => w.alive());
      const running = live.filter((w) => (balancer.open.get(w.url) ?? 0) > 0);
      if (running.length === 0) throw new Error('no worker holds a run');
      if (running.length === live.length) throw new Error(`every live worker (${live.length}) holds a run: none would be left to take it`);
      await Promise.all(running.map((w) => w.kill('SIGKILL')));
      return running;
    },
    resultOf: (sessionId, timeoutMs) =>
      until(
        `the run of ${sessionId} to finish`,
        async () => {
          const status = await runStatus(restate.ingress, sessionId);
          return status.status === 'done' ? status.result : undefined;
        },
        timeoutMs,
      ),
    async close() {
      await Promise.all(workers.map((w) => w.kill()));
      await Promise.all([balancer.close(), model.close(), restate.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

/** A point a test holds a run at: `hold()` answers a model request never (it is under way when the worker is killed), `reached` settles at the first. */
export function holdPoint(): { reached: Promise<void>; hold<T>(): Promise<T> } {
  let reach: () => void = () => {};
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return {
    reached,
    hold<T>() {
      reach();
      return new Promise<T>(() => {});
    },
  };
}

/** Waits for `check` to give a value (asked every `everyMs`); throws, naming `what`, after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
