/**
 * A small MCP server made with the official SDK's own server classes, for what server-everything cannot show: a tool
 * that writes a file (is the server sandboxed?), one that appends a line and waits (killed mid-call), one that says
 * where it runs, one whose result is structured content with no text, a read-only one that leaves a file, and one that
 * answers 200,000 characters (`big_text`). Stdio (`stdio`), or streamable HTTP on
 * 127.0.0.1 (`startProbeHttp`, in the test's process).
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export function probeServer(): Server {
  const server = new Server({ name: 'probe', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'write_file',
        description: 'Write text to a file.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path', 'text'] },
      },
      {
        name: 'slow_write',
        description: 'Append a line to a file, then wait some seconds before answering.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' }, seconds: { type: 'number' } }, required: ['path', 'seconds'] },
      },
      { name: 'whoami', description: 'Say which server this is.', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
      {
        // Annotated read-only though it writes: the file says when the call reached the server (does it start mid-stream?).
        name: 'note',
        description: 'Write a file saying the call arrived.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        annotations: { readOnlyHint: true },
      },
      { name: 'big_text', description: 'Answers 200,000 characters of text.', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } },
      {
        name: 'weather',
        description: "A city's weather as structured content only (no text block).",
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        outputSchema: { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'] },
        annotations: { readOnlyHint: true },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = (request.params.arguments ?? {}) as { path?: string; text?: string; seconds?: number; city?: string };
    if (request.params.name === 'note') {
      writeFileSync(String(args.path), 'arrived');
      return { content: [{ type: 'text', text: 'noted' }] };
    }
    if (request.params.name === 'big_text') return { content: [{ type: 'text', text: `START${'p'.repeat(200_000)}END` }] };
    if (request.params.name === 'weather') return { content: [], structuredContent: { city: String(args.city), celsius: 21.5 } };
    if (request.params.name === 'slow_write') {
      appendFileSync(String(args.path), 'started\n');
      await new Promise((resolve) => setTimeout(resolve, Number(args.seconds) * 1000));
      return { content: [{ type: 'text', text: `waited ${args.seconds} s` }] };
    }
    if (request.params.name === 'whoami') {
      // The trace context the client sent in _meta (an OpenTelemetry-traced client's), when it sent one.
      const traced = request.params._meta?.traceparent ? `, traceparent ${String(request.params._meta.traceparent)}` : '';
      return { content: [{ type: 'text', text: `probe, auth ${String(extra.requestInfo?.headers?.authorization ?? 'none')}${traced}` }] };
    }
    try {
      writeFileSync(String(args.path), String(args.text));
      return { content: [{ type: 'text', text: `wrote ${args.path}` }] };
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: (error as Error).message }] };
    }
  });
  return server;
}

/** Streamable HTTP on 127.0.0.1 (a port the OS chose), one stateless transport per request. */
export async function startProbeHttp(): Promise<{ url: string; close(): Promise<void> }> {
  const http: HttpServer = createServer(async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const server = probeServer();
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

if (process.argv[2] === 'stdio') await probeServer().connect(new StdioServerTransport());
