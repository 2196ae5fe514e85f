/**
 * The real `@modelcontextprotocol/server-everything` from npm speaking the older HTTP+SSE transport (`"type": "sse"`)
 * on 127.0.0.1, in a process of its own so that a test can kill it mid-call. Its own `sse` launcher listens on every
 * address at a fixed port (PORT, 3001), so this hosts the same server (its `createServer`, one per SSE session) with
 * the MCP SDK's `SSEServerTransport` as that launcher does, on a port the OS chose, and prints `URL <url>` when it
 * listens, and `CALL <tool>` once the server has taken a tool call (answered its POST). `startEverythingSse()` runs it and resolves with the
 * URL and the process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

export interface SseServer {
  url: string;
  child: ChildProcess;
  /** Resolves once a call of `tool` has reached the server (at once when one already has). */
  called(tool: string): Promise<void>;
  /** Kills the server (SIGKILL) and resolves once it has exited. */
  kill(): Promise<void>;
}

/** Runs this file as a process (this node, through tsx) and resolves once it says where it listens. */
export function startEverythingSse(env: Record<string, string> = {}): Promise<SseServer> {
  return startServing(fileURLToPath(import.meta.url), env);
}

/** Runs `file serve` (a server of this kind: says `URL <url>`, then `CALL <tool>`) and resolves once it says where it listens. */
export async function startServing(file: string, env: Record<string, string> = {}): Promise<SseServer> {
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  const child = spawn(process.execPath, ['--import', tsx, file, 'serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  /** Resolves with what `pattern` finds in the server's output, looking at what already arrived first. */
  const said = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const look = () => {
        const found = pattern.exec(stdout);
        if (!found) return false;
        child.stdout!.off('data', look);
        resolve(found[1] ?? found[0]);
        return true;
      };
      if (look()) return;
      child.stdout!.on('data', look);
      void exited.then(() => reject(new Error(`the MCP server exited before saying ${pattern}: ${stderr}`)));
    });
  const url = await said(/^URL (\S+)$/m);
  return {
    url,
    child,
    called: async (tool) => void (await said(new RegExp(`^CALL ${tool}$`, 'm'))),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** server-everything's server over the SDK's SSEServerTransport: GET /sse opens a session, POST /message?sessionId=… feeds it. */
async function serve(): Promise<void> {
  const { SSEServerTransport } = await import('@modelcontextprotocol/sdk/server/sse.js');
  const root = dirname(require.resolve('@modelcontextprotocol/server-everything/package.json'));
  const { createServer } = (await import(pathToFileURL(join(root, 'dist/server/index.js')).href)) as {
    createServer(): { server: { connect(t: unknown): Promise<void> }; cleanup(id?: string): void };
  };
  const sessions = new Map<string, InstanceType<typeof SSEServerTransport>>();
  const http = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/message', res);
      const { server, cleanup } = createServer();
      sessions.set(transport.sessionId, transport);
      transport.onclose = () => {
        sessions.delete(transport.sessionId);
        cleanup(transport.sessionId);
      };
      void server.connect(transport);
      return;
    }
    const transport = req.method === 'POST' && url.pathname === '/message' ? sessions.get(url.searchParams.get('sessionId') ?? '') : undefined;
    // The tool's name is said once the server has taken the call (answered the POST 202 Accepted).
    if (transport) void readBody(req).then(async (body) => {
      await transport.handlePostMessage(req, res, body);
      if (body.method === 'tools/call') process.stdout.write(`CALL ${body.params?.name}\n`);
    });
    else res.writeHead(404).end('no such session');
  });
  http.listen(0, '127.0.0.1', () => process.stdout.write(`URL http://127.0.0.1:${(http.address() as AddressInfo).port}/sse\n`));
}

export async function readBody(req: IncomingMessage): Promise<{ method?: string; params?: { name?: string } }> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text) as { method?: string; params?: { name?: string } };
}

if (process.argv[2] === 'serve' && process.argv[1] === fileURLToPath(import.meta.url)) await serve();
