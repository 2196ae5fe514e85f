import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A port that cannot be listened on (taken, or below 1024 without root): the message says which and what to do. */
export class PortError extends Error {
  override readonly name = 'PortError';
}

/** A listen's error as PortError when the port is the problem (taken, or not this user's to take); else as it is. */
export function portError(port: number, error: NodeJS.ErrnoException, host = '127.0.0.1', what = 'another agentloop page'): Error {
  const choose = what === 'another agentloop page' ? 'give another --port, or none to take a free one' : 'give another --port (0: any free one)';
  if (error.code === 'EADDRINUSE') return new PortError(`port ${port} on ${host} is in use (by another program, or ${what}): ${choose}`);
  if (error.code === 'EACCES') return new PortError(`port ${port} on ${host} may not be used by this user (ports below 1024 need root): ${choose}`);
  return error;
}

/** Starts `server` on 127.0.0.1 only (port 0: any free port) and gives back the port it got; a port it cannot have, as PortError. */
export async function listenOnLoopback(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(portError(port, error));
    server.once('error', failed);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', failed);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
