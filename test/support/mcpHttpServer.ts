/**
 * The real `@modelcontextprotocol/server-everything` from npm speaking streamable HTTP (`"type": "http"`) on
 * 127.0.0.1, in a process of its own so that a test can kill it mid-call. Its own `streamableHttp` launcher listens on
 * every address at a fixed port (PORT, 3001), so this hosts the same server (its `createServer`, one per session)
 * with the MCP SDK's `StreamableHTTPServerTransport` as that launcher does, on a port the OS chose. It prints
 * `URL <url>` when it listens, and `CALL <tool>` once it has taken a tool call: the headers of the call's event
 * stream are on their way to the client, so a kill from then on cuts that stream. `startEverythingHttp()` runs it.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readBody, startServing, type SseServer } from './mcpSseServer.js';

const require = createRequire(import.meta.url);

export function startEverythingHttp(env: Record<string, string> = {}): Promise<SseServer> {
  return startServing(fileURLToPath(import.meta.url), env);
}

/** server-everything's server over the SDK's StreamableHTTPServerTransport: POST /mcp, a session per initialize. */
async function serve(): Promise<void> {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const root = dirname(require.resolve('@modelcontextprotocol/server-everything/package.json'));
  const { createServer } = (await import(pathToFileURL(join(root, 'dist/server/index.js')).href)) as {
    createServer(): { server: { connect(t: unknown): Promise<void> }; cleanup(id?: string): void };
  };
  const sessions = new Map<string, InstanceType<typeof StreamableHTTPServerTransport>>();
  const http = createHttpServer((req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (req.method !== 'POST' || (id !== undefined && !transport)) return void res.writeHead(id ? 404 : 405).end();
    void readBody(req).then(async (body) => {
      if (!transport) {
        const { server } = createServer();
        const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => void sessions.set(sid, created) });
        await server.connect(created);
        transport = created;
      }
      if (body.method === 'tools/call') sayWhenSent(res, `CALL ${body.params?.name}\n`);
      await transport.handleRequest(req, res, body);
    });
  });
  http.listen(0, '127.0.0.1', () => process.stdout.write(`URL http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`));
}

/** Prints `line` once the response's headers have been flushed to the socket. */
function sayWhenSent(res: ServerResponse, line: string): void {
  const flush = res.flushHeaders.bind(res);
  res.flushHeaders = () => {
    flush();
    process.stdout.write(line);
  };
}

if (process.argv[2] === 'serve' && process.argv[1] === fileURLToPath(import.meta.url)) await serve();
