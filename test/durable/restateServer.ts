/**
 * A real `restate-server` (the binary of the `@restatedev/restate-server` npm package) for tests:
 * loopback ports of its own, a temporary data directory, killed and removed by `close()`.
 * `restateBinary()` says why it cannot run here, if it cannot (the tests are then skipped).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RestateServer {
  ingress: string;
  admin: string;
  /** What the server printed (for a failing test's message). */
  log(): string;
  /** Stops the server (SIGKILL unless told) and starts it again on the same data and ports. */
  restart(signal?: NodeJS.Signals): Promise<void>;
  close(): Promise<void>;
}

/** The server binary, or why there is none that runs here. */
export function restateBinary(): { path: string } | { problem: string } {
  let path: string;
  try {
    path = createRequire(import.meta.url).resolve(`@restatedev/restate-server-${platform()}-${arch()}/bin/restate-server`);
  } catch {
    return { problem: `no restate-server binary for ${platform()}-${arch()} in node_modules` };
  }
  const probe = spawnSync(path, ['--help'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.status !== 0) return { problem: `restate-server does not run here: ${probe.error?.message ?? probe.stderr.slice(0, 300)}` };
  return { path };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, child: ChildProcess, deadline: number): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`restate-server exited (${child.exitCode}) before it was ready`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`restate-server not ready at ${url}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startRestateServer(binary: string): Promise<RestateServer> {
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-restate-'));
  const ports = { ingress: await freePort(), admin: await freePort(), node: await freePort() };
  let output = '';
  const append = (d: Buffer) => (output += d.toString());
  let child = await spawnServer(binary, dir, ports, append, () => output);
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    }
  };
  return {
    ingress: `http://127.0.0.1:${ports.ingress}`,
    admin: `http://127.0.0.1:${ports.admin}`,
    log: () => output,
    async restart(signal = 'SIGKILL') {
      await kill(signal);
      child = await spawnServer(binary, dir, ports, append, () => output);
    },
    async close() {
      await kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts the server on `dir` and `ports` (a restart keeps both), ready when its health checks answer. */
async function spawnServer(
  binary: string,
  dir: string,
  ports: { ingress: number; admin: number; node: number },
  append: (d: Buffer) => void,
  output: () => string,
): Promise<ChildProcess> {
  const child = spawn(binary, ['--base-dir', dir, '--no-logo', '--default-num-partitions', '4'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      RESTATE_LISTEN_MODE: 'tcp',
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ports.ingress}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${ports.admin}`,
      RESTATE_BIND_ADDRESS: `127.0.0.1:${ports.node}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${ports.node}`,
      RESTATE_LOG_FORMAT: 'compact',
      RESTATE_LOG_FILTER: 'warn',
    },
  });
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  try {
    const deadline = Date.now() + 30_000;
    await waitFor(`http://127.0.0.1:${ports.admin}/health`, child, deadline);
    await waitFor(`http://127.0.0.1:${ports.ingress}/restate/health`, child, deadline);
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n${output().slice(-2000)}`);
  }
  return child;
}
