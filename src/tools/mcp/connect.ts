/**
 * One MCP server through the official SDK's client: connect over any MCP `Transport` (a stdio process, HTTP, or one
 * the caller made, e.g. the Agent SDK's in-process servers over stream-json control messages), list its tools (every
 * page), and turn them into tools of the loop (./tools.ts). Start-up is bounded (`MCP_TIMEOUT`): a server that does
 * not answer in time, or fails, is closed and reported `failed` with why.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../../core/tool.js';
import { loopTool, messageOf } from './tools.js';

export interface McpConnectOptions {
  /** Bound of the connection and the tool listing, in ms (`MCP_TIMEOUT`). */
  startTimeoutMs: number;
  /** Bound of each tool call, in ms (`MCP_TOOL_TIMEOUT`). */
  toolTimeoutMs: number;
  /** Bound of what each call gives the model, in tokens (`MAX_MCP_OUTPUT_TOKENS`; default 25,000). */
  maxOutputTokens?: number;
  /** The client's version in its `initialize` request. */
  version?: string;
  /** Aborting it gives up the connection. */
  signal?: AbortSignal;
  /** More of why it failed (e.g. the last lines the process wrote to stderr), asked for when it fails. */
  details?: () => string;
}

export type McpConnection =
  | { status: 'connected'; tools: Tool[]; close(): Promise<void>; onClose(listener: () => void): void }
  | { status: 'failed'; error: string };

/** Connects `transport` as server `name`; never rejects: a failure is `{ status: 'failed', error }`. */
export async function connectMcpServer(name: string, transport: Transport, options: McpConnectOptions): Promise<McpConnection> {
  const client = new Client({ name: 'agentloop', version: options.version ?? '0' }, { capabilities: {} });
  const closed: (() => void)[] = [];
  try {
    const tools = await withinBound(listTools(client, transport, options), options.startTimeoutMs, options.signal);
    client.onclose = () => closed.splice(0).forEach((listener) => listener());
    return {
      status: 'connected',
      tools: tools.map((tool) => loopTool(client, tool, { server: name, timeoutMs: options.toolTimeoutMs, ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}) })),
      close: () => client.close(),
      onClose: (listener) => closed.push(listener),
    };
  } catch (error) {
    await client.close().catch(() => undefined);
    const details = options.details?.().trim();
    return { status: 'failed', error: `${messageOf(error)}${details ? ` (stderr: ${details})` : ''}` };
  }
}

async function listTools(client: Client, transport: Transport, options: McpConnectOptions): Promise<McpTool[]> {
  const request = { timeout: options.startTimeoutMs, ...(options.signal ? { signal: options.signal } : {}) };
  await client.connect(transport, request);
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, request);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/** `work`, or a rejection once `ms` have passed or `signal` aborts (a spawn that never answers has no request to time). */
function withinBound<T>(work: Promise<T>, ms: number, signal: AbortSignal | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms (MCP_TIMEOUT)`)), ms);
    const abort = () => reject(new Error('start-up aborted'));
    signal?.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    });
  });
}
