/**
 * `agentloop worker`: serves the `AgentSession` object as a Restate deployment (HTTP/2, one
 * bidirectional stream per invocation attempt) and, when asked, registers it with a Restate
 * server's admin API.
 */
import './node20.js';
import { createServer, type Http2Server } from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import { agentSession, RUN_TIMEOUTS, SERVICE_NAME, type WorkerSettings } from './agentSession.js';
import { agentChild } from './agentChild.js';
import { restateCall } from './http.js';
import { balancerBackends, joinBalancer, spareBalancerPort } from './pool.js';
import { closer, listen } from './serving.js';

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
    services: [agentSession(options), agentChild(options)],
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
  const close = closer(server);
  const { url, port } = await listen(server, options.port ?? 9080, options.host ?? '127.0.0.1');
  return { url, port, close };
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

/**
 * The deployment new runs of `AgentSession` go to: of those that serve it, the one with its latest revision (the one
 * registered last). Restate keeps the others for the runs that started there.
 */
export async function currentDeployment(adminUrl: string): Promise<Deployment | undefined> {
  type Listed = { id: string; uri?: string; services?: Array<{ name: string; revision?: number }> };
  const answer = await adminCall<{ deployments?: Listed[] }>(adminUrl, 'GET');
  const revision = (d: Listed) => d.services?.find((s) => s.name === SERVICE_NAME)?.revision;
  const serving = (answer?.deployments ?? []).filter((d) => revision(d) !== undefined);
  const latest = serving.reduce<Listed | undefined>((best, d) => (best && (revision(best) ?? 0) >= (revision(d) ?? 0) ? best : d), undefined);
  return latest && { id: latest.id, uri: latest.uri ?? '', services: (latest.services ?? []).map((s) => s.name) };
}

function adminCall<T>(adminUrl: string, method: 'GET' | 'POST', body?: unknown): Promise<T> {
  return restateCall<T>(new URL('/deployments', adminUrl), { method, body, timeoutMs: 60_000 }).catch((error: unknown) => {
    throw new RegistrationError(error instanceof Error ? error.message : String(error));
  });
}

const sameAddress = (a: string, b: string) => new URL(a).href === new URL(b).href;

/** How a registration goes when another address already serves `AgentSession`. */
export interface RegisterOptions {
  /** Register anyway: new runs then go to `uri` only. */
  replace?: boolean;
  /** What registers: a worker joins an agentloop balancer found there; a balancer is refused. */
  as?: 'worker' | 'balancer';
  /** How to run agentloop in the command a refusal offers (cli/commandLine/self.ts `selfCommand`; default `agentloop`). */
  command?: string;
}

/**
 * Registers `uri` with the admin API at `adminUrl` (`POST /deployments`): Restate asks the
 * endpoint which services it serves (and the timeouts and retry policy of agentSession.ts).
 * Registering the same address again is harmless.
 *
 * Restate sends a run to the address it started on for good, and new runs to the address registered
 * last, so workers share one address. When another address is the one new runs of `AgentSession` go to: if it is
 * an `agentloop balancer`, the worker at `uri` joins its workers instead (`joined` lists them);
 * otherwise a `RegistrationError` says how to put workers behind one address, unless `replace`.
 */
export async function registerDeployment(adminUrl: string, uri: string, options: RegisterOptions = {}): Promise<Deployment & { joined?: string[] }> {
  if (!options.replace) {
    const current = await currentDeployment(adminUrl);
    if (current && !sameAddress(current.uri, uri)) return joinOrRefuse(adminUrl, uri, current, options);
  }
  const body = await adminCall<{ id: string; services?: Array<{ name: string }> }>(adminUrl, 'POST', { uri });
  const services = (body.services ?? []).map((s) => s.name);
  if (!services.includes(SERVICE_NAME)) throw new RegistrationError(`the deployment at ${uri} does not serve ${SERVICE_NAME}`);
  return { id: body.id, uri, services };
}

async function joinOrRefuse(adminUrl: string, uri: string, other: Deployment, options: RegisterOptions): Promise<Deployment & { joined: string[] }> {
  const address = other.uri.replace(/\/$/, '');
  if (options.as !== 'balancer' && (await balancerBackends(address))) {
    const joined = await joinBalancer(address, uri);
    if ('refused' in joined) throw new RegistrationError(`the balancer at ${address} refused this worker: ${joined.refused}`);
    return { ...other, uri: address, joined: joined.backends };
  }
  const head = `${SERVICE_NAME} is already served at ${address} (deployment ${other.id}), and Restate sends each run to one address for good`;
  if (options.as === 'balancer') {
    throw new RegistrationError(`${head}: add it to this balancer's workers (--backend ${address}) and register with --replace`);
  }
  // A balancer in front of the worker there, in its place; this worker's own command then finds it and joins.
  const port = await spareBalancerPort([address, uri]);
  const balancer = `${options.command ?? 'agentloop'} balancer --port ${port} --backend ${address} --register ${adminUrl} --replace`;
  throw new RegistrationError(
    `${head}, so workers share one: put them behind a balancer (${balancer}, then this worker's command again: it joins the balancer; ` +
      `see docs/durable.md), or register this worker in its place with --replace`,
  );
}

/** What the registration set: when a run leaves a worker that stopped answering. */
export function takeover(): string {
  const { inactivityTimeout, abortTimeout } = RUN_TIMEOUTS;
  const s = (ms: number) => `${ms / 1000} s`;
  return `a run whose worker stops answering is retried after ${s(inactivityTimeout + abortTimeout)} (inactivity timeout ${s(inactivityTimeout)} + abort timeout ${s(abortTimeout)})`;
}
