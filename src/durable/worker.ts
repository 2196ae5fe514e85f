/**
 * `agentloop worker`: serves the `AgentSession` object as a Restate deployment (HTTP/2, one
 * bidirectional stream per invocation attempt) and, when asked, registers it with a Restate
 * server's admin API.
 */
import './node20.js';
import { createServer, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import * as restate from '@restatedev/restate-sdk';
import { agentSession, RUN_TIMEOUTS, SERVICE_NAME, type WorkerSettings } from './agentSession.js';
import { restateCall } from './http.js';
import { balancerBackends, joinBalancer } from './pool.js';

export interface WorkerOptions extends WorkerSettings {
  /** Default 9080; 0 for any free port. */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Restate's request-signing public keys: requests not signed by one of them are refused. */
  identityKeys?: string[];
  /** Receives the SDK's warnings and errors (default: stderr). */
  log?: (line: string) => void;
}

const CLOSE_GRACE_MS = 2000;

export interface Worker {
  /** `http://HOST:PORT`, the address to register (unless the workers sit behind a load balancer). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // The SDK repeats its warnings that concern the whole endpoint at every discovery: said once.
  const said = new Set<string>();
  const handler = restate.createEndpointHandler({
    services: [agentSession(options)],
    bidirectional: true,
    ...(options.identityKeys?.length ? { identityKeys: options.identityKeys } : {}),
    logger: (params, message, ...rest) => {
      if (params.replaying || (params.level !== 'warn' && params.level !== 'error')) return;
      const where = params.context ? ` ${params.context.invocationTarget} ${params.context.invocationId}` : '';
      const text = [message, ...rest].map(String).join(' ');
      if (!params.context) {
        if (said.has(text)) return;
        said.add(text);
      }
      log(`restate ${params.level}${where}: ${text}`);
    },
  });
  const server: Http2Server = createServer(handler);
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 9080, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`,
    port,
    // Restate keeps its connections open: they are asked to close, and cut after a grace period
    // (an invocation cut off is retried by Restate, on another worker).
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.close();
        setTimeout(() => {
          for (const session of sessions) session.destroy();
        }, CLOSE_GRACE_MS).unref();
      }),
  };
}

export class RegistrationError extends Error {
  override readonly name = 'RegistrationError';
}

/** A deployment registered with Restate. */
export interface Deployment {
  id: string;
  uri: string;
  services: string[];
}

/** The deployments that serve `AgentSession` (Restate sends a run to the one it started on, for good). */
export async function agentDeployments(adminUrl: string): Promise<Deployment[]> {
  const answer = await adminCall<{ deployments?: Array<{ id: string; uri?: string; services?: Array<{ name: string }> }> }>(adminUrl, 'GET');
  return (answer?.deployments ?? [])
    .map((d) => ({ id: d.id, uri: d.uri ?? '', services: (d.services ?? []).map((s) => s.name) }))
    .filter((d) => d.services.includes(SERVICE_NAME));
}

function adminCall<T>(adminUrl: string, method: 'GET' | 'POST', body?: unknown): Promise<T> {
  return restateCall<T>(new URL('/deployments', adminUrl), { method, body, timeoutMs: 60_000 }).catch((error: unknown) => {
    throw new RegistrationError(error instanceof Error ? error.message : String(error));
  });
}

const sameAddress = (a: string, b: string) => new URL(a).href === new URL(b).href;

/**
 * Registers `uri` with the admin API at `adminUrl` (`POST /deployments`): Restate asks the
 * endpoint which services it serves (and the timeouts and retry policy of agentSession.ts).
 * Registering the same address again is harmless.
 *
 * Restate sends a run to the address it started on for good, and new runs to the address registered
 * last, so workers share one address. When another address already serves `AgentSession`: if it is
 * an `agentloop balancer`, the worker at `uri` joins its workers instead (`joined` lists them);
 * otherwise a `RegistrationError` says how to put workers behind one address, unless `replace`.
 */
export async function registerDeployment(
  adminUrl: string,
  uri: string,
  options: { replace?: boolean; as?: 'worker' | 'balancer' } = {},
): Promise<Deployment & { joined?: string[] }> {
  if (!options.replace) {
    const other = (await agentDeployments(adminUrl)).find((d) => !sameAddress(d.uri, uri));
    if (other) return joinOrRefuse(adminUrl, uri, other, options.as ?? 'worker');
  }
  const body = await adminCall<{ id: string; services?: Array<{ name: string }> }>(adminUrl, 'POST', { uri });
  const services = (body.services ?? []).map((s) => s.name);
  if (!services.includes(SERVICE_NAME)) throw new RegistrationError(`the deployment at ${uri} does not serve ${SERVICE_NAME}`);
  return { id: body.id, uri, services };
}

async function joinOrRefuse(adminUrl: string, uri: string, other: Deployment, as: 'worker' | 'balancer'): Promise<Deployment & { joined: string[] }> {
  const address = other.uri.replace(/\/$/, '');
  if (as === 'worker' && (await balancerBackends(address))) {
    const joined = await joinBalancer(address, uri);
    if ('refused' in joined) throw new RegistrationError(`the balancer at ${address} refused this worker: ${joined.refused}`);
    return { ...other, uri: address, joined: joined.backends };
  }
  const head = `${SERVICE_NAME} is already served at ${address} (deployment ${other.id}), and Restate sends each run to one address for good`;
  if (as === 'balancer') {
    throw new RegistrationError(`${head}: add it to this balancer's workers (--backend ${address}) and register with --replace`);
  }
  throw new RegistrationError(
    `${head}, so workers share one: put them behind a balancer (agentloop balancer --port 9080 --backend ${address} --backend ${uri} ` +
      `--register ${adminUrl}; see docs/durable.md), or register this worker in its place with --replace`,
  );
}

/** What the registration set: when a run leaves a worker that stopped answering. */
export function takeover(): string {
  const { inactivityTimeout, abortTimeout } = RUN_TIMEOUTS;
  const s = (ms: number) => `${ms / 1000} s`;
  return `a run whose worker stops answering is retried after ${s(inactivityTimeout + abortTimeout)} (inactivity timeout ${s(inactivityTimeout)} + abort timeout ${s(abortTimeout)})`;
}
