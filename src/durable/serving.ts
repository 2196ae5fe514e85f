/**
 * What the worker and the balancer do alike as HTTP/2 servers: listen, say their address, and close although Restate
 * keeps its connections to them open.
 */
import type { Http2Server, ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { portError } from '../loopback/listen.js';

/** How long the connections still open at a close have to end before they are cut. */
const CLOSE_GRACE_MS = 2000;

/** Listens on `port` (0: any free one) of `host`; the address to give out: `http://HOST:PORT` (an unspecified host as 127.0.0.1). */
export async function listen(server: Http2Server, port: number, host: string): Promise<{ url: string; port: number }> {
  await new Promise<void>((resolve, reject) => {
    // A port taken (another worker's) is one line naming it (PortError), not a listen error's stack.
    const failed = (error: NodeJS.ErrnoException) => reject(portError(port, error, host, 'another worker'));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return { url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${bound}`, port: bound };
}

/**
 * A close for `server` that does not wait for Restate: the connections open then are asked to close, and cut after a
 * grace period (an attempt cut off is retried by Restate, on another worker).
 */
export function closer(server: Http2Server): () => Promise<void> {
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const session of sessions) session.close();
      setTimeout(() => {
        for (const session of sessions) session.destroy();
      }, CLOSE_GRACE_MS).unref();
    });
}
