/**
 * `agentloop worker`: serves the `AgentSession` object as a Restate deployment (HTTP/2, one
 * bidirectional stream per invocation attempt) and, when asked, registers it with a Restate
 * server's admin API.
 */
import './node20.js';
import { createServer, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import * as restate from '@restatedev/restate-sdk';
import { agentSession, SERVICE_NAME, type WorkerSettings } from './agentSession.js';

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

/**
 * Registers `uri` with the admin API at `adminUrl` (`POST /deployments`): Restate asks the
 * endpoint which services it serves. Registering the same address again is harmless.
 */
export async function registerDeployment(adminUrl: string, uri: string): Promise<{ id: string; services: string[] }> {
  let response: Response;
  try {
    response = await fetch(new URL('/deployments', adminUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri }),
    });
  } catch (error) {
    throw new RegistrationError(`cannot reach the Restate admin API at ${adminUrl}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await response.text();
  if (!response.ok) throw new RegistrationError(`the Restate admin API refused ${uri} (HTTP ${response.status}): ${text.trim()}`);
  const body = JSON.parse(text) as { id: string; services?: Array<{ name: string }> };
  const services = (body.services ?? []).map((s) => s.name);
  if (!services.includes(SERVICE_NAME)) throw new RegistrationError(`the deployment at ${uri} does not serve ${SERVICE_NAME}`);
  return { id: body.id, services };
}
