import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A port that cannot be listened on (taken, or below 1024 without root): the message says which and what to do. */
export class PortError extends Error {
  override readonly name = 'PortError';
}

function portError(port: number, error: NodeJS.ErrnoException): Error {
  if (error.code === 'EADDRINUSE') return new PortError(`port ${port} on 127.0.0.1 is in use (by another program, or another agentloop page): give another --port, or none to take a free one`);
  if (error.code === 'EACCES') return new PortError(`port ${port} on 127.0.0.1 may not be used by this user (ports below 1024 need root): give another --port, or none to take a free one`);
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
