/**
 * The MCP servers of a run, managed like its tools: `startMcpServers` starts every server at once, in the background
 * (each `pending` until it is `connected` or `failed`); `ready()` waits until each has settled, at most the start-up
 * bound (`MCP_TIMEOUT`, 30 s by default, as Claude Code's); `tools()` are the connected servers' tools, to add to the
 * run's; `close()` stops them all. A server that fails to start is left out of the tools, and its status says why: the
 * run goes on without it.
 *
 * For the library:
 *
 *     const mcp = startMcpServers(loadMcpConfigs(['cfg.json'], process.env, cwd), { cwd });
 *     await mcp.ready();
 *     try { await runAgent(prompt, { model, tools: [...defaultTools({ cwd }), ...mcp.tools()] }); }
 *     finally { await mcp.close(); }
 *
 * A server given as `{ type: 'sdk', instance }` is an in-process one: the MCP SDK's `McpServer` (what the Agent SDK's
 * `createSdkMcpServer` returns in `instance`), connected over an in-memory transport. One given as
 * `{ type: 'transport', transport }` is connected over that MCP `Transport` as it is (e.g. one whose messages travel as
 * stream-json control requests).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool } from '../../core/tool.js';
import { chooseRunner, type RunnerWanted } from '../bash/run/choose.js';
import { requireBwrap } from '../bash/run/sandbox.js';
import type { CommandRunner } from '../bash/run/runner.js';
import type { McpServerConfig } from './config.js';
import type { McpConnectOptions, McpConnection } from './connect.js';
import { maxMcpOutputTokens } from './outputCap.js';

/**
 * An in-process MCP server: the MCP SDK's `McpServer` (or any of its `Protocol` servers), as the Agent SDK's
 * `createSdkMcpServer` gives it (`{ type: 'sdk', name, instance }`). Typed by what is used of it, so that the published
 * types need neither Node's nor the DOM's (the MCP SDK's do).
 */
export interface McpSdkServer {
  type: 'sdk';
  name?: string;
  instance: { connect(transport: never): Promise<void> };
}

/** An MCP SDK `Transport` made by the caller, typed by what is used of it (as McpSdkServer's instance). */
export interface McpTransport {
  start(): Promise<void>;
  send(message: never): Promise<void>;
  close(): Promise<void>;
}

/** A server of the run: a configuration, an in-process server, or a transport made by the caller. */
export type McpServerSpec = McpServerConfig | McpSdkServer | { type: 'transport'; transport: McpTransport };

export type McpServerStatus = 'pending' | 'connected' | 'failed';

/** As the init line's `mcp_servers` lists them (Claude Code's `{name, status}`), with why a server failed. */
export interface McpServerState {
  name: string;
  status: McpServerStatus;
  error?: string;
}

export interface McpServersOptions {
  /** Where stdio servers work. */
  cwd: string;
  /** Where `MCP_TIMEOUT`, `MCP_TOOL_TIMEOUT` and `MAX_MCP_OUTPUT_TOKENS` are read, and the PATH the containment's programs are found on (default: `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Contain stdio servers as the bash tool's commands (default true). */
  contain?: boolean;
  /**
   * Start stdio servers in the bash tool's sandbox (`--sandbox`: read-only system but `cwd`, no network, secrets and
   * `hide` hidden), but those whose config says `sandbox: false` (contained all the same). Throws
   * SandboxUnavailableError at once when bubblewrap is missing.
   */
  sandbox?: { hide?: readonly string[] };
  /** The client's version in `initialize`. */
  version?: string;
}

export interface McpServers {
  /** Each server's state now, in the order configured. */
  states(): McpServerState[];
  /** Resolves once every server is connected or failed. */
  ready(): Promise<void>;
  /** The tools of the servers connected now. */
  tools(): Tool[];
  /** Stops every server (those still starting too); the tools then answer with an error. */
  close(): Promise<void>;
}

/** Claude Code's defaults: 30 s to start, and a tool call bounded only by a very long time (about 28 hours). */
const START_TIMEOUT_MS = 30_000;
const TOOL_TIMEOUT_MS = 100_000_000;

export function startMcpServers(servers: Readonly<Record<string, McpServerSpec>>, options: McpServersOptions): McpServers {
  const env = options.env ?? process.env;
  const stopping = new AbortController();
  const connectOptions: McpConnectOptions = {
    startTimeoutMs: positive(env.MCP_TIMEOUT) ?? START_TIMEOUT_MS,
    toolTimeoutMs: positive(env.MCP_TOOL_TIMEOUT) ?? TOOL_TIMEOUT_MS,
    maxOutputTokens: maxMcpOutputTokens(env),
    signal: stopping.signal,
    ...(options.version ? { version: options.version } : {}),
  };
  const runners = runnersOf(options, env);
  const entries = Object.entries(servers).map(([name, spec]) => {
    const entry: { name: string; connection?: McpConnection; started: Promise<McpConnection> } = { name, started: undefined as never };
    const runner = spec.type === 'stdio' && spec.sandbox === false ? runners.outside : runners.asked;
    entry.started = connect(name, spec, options.cwd, runner, connectOptions).then((connection) => {
      entry.connection = connection;
      return connection;
    });
    return entry;
  });
  return {
    states: () => entries.map(({ name, connection }) => stateOf(name, connection)),
    ready: async () => {
      await Promise.all(entries.map((e) => e.started));
    },
    tools: () => entries.flatMap(({ connection }) => (connection?.status === 'connected' ? connection.tools : [])),
    close: async () => {
      stopping.abort();
      const connections = await Promise.all(entries.map((e) => e.started));
      await Promise.all(connections.map((c) => (c.status === 'connected' ? c.close().catch(() => undefined) : undefined)));
    },
  };
}

async function connect(
  name: string,
  spec: McpServerSpec,
  cwd: string,
  runner: () => Promise<CommandRunner>,
  options: McpConnectOptions,
): Promise<McpConnection> {
  // A configuration's own bound of a call (`timeout`) over MCP_TOOL_TIMEOUT's.
  if ('timeout' in spec && typeof spec.timeout === 'number') options = { ...options, toolTimeoutMs: spec.timeout };
  try {
    // The MCP SDK is loaded when a server is started, not when agentloop is imported.
    const { connectMcpServer } = await import('./connect.js');
    if (spec.type === 'transport') return await connectMcpServer(name, spec.transport as unknown as Transport, options);
    if (spec.type === 'sdk') return await connectMcpServer(name, await inProcess(spec), options);
    if (spec.type === 'stdio') {
      const { stdioServer } = await import('./stdio.js');
      const server = stdioServer(spec, cwd, await runner());
      return await connectMcpServer(name, server.transport, { ...options, details: server.stderrTail });
    }
    const { httpTransport } = await import('./http.js');
    return await connectMcpServer(name, httpTransport(spec), options);
  } catch (error) {
    return { status: 'failed', error: error instanceof Error ? error.message : String(error) };
  }
}

/** The client's side of an in-memory transport whose other side `spec`'s server is connected to. */
async function inProcess(spec: McpSdkServer): Promise<Transport> {
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const [client, server] = InMemoryTransport.createLinkedPair();
  await spec.instance.connect(server as never);
  return client;
}

/**
 * How stdio servers are started, each way chosen once when first needed: as the bash tool's commands are, in its
 * sandbox when asked (`asked`); contained but outside the sandbox (`outside`: a config's `sandbox: false`).
 */
function runnersOf(options: McpServersOptions, env: Readonly<Record<string, string | undefined>>): Record<'asked' | 'outside', () => Promise<CommandRunner>> {
  const plain: RunnerWanted = { contain: options.contain !== false, pathVar: env.PATH };
  const hide = options.sandbox?.hide;
  const sandbox = options.sandbox && { bwrap: requireBwrap(env.PATH), env: () => env, reveal: () => [], ...(hide ? { hide } : {}) };
  const once = (wanted: RunnerWanted) => {
    let runner: Promise<CommandRunner> | undefined;
    return () => (runner ??= chooseRunner(wanted));
  };
  const outside = once(plain);
  return { asked: sandbox ? once({ ...plain, sandbox }) : outside, outside };
}

function stateOf(name: string, connection: McpConnection | undefined): McpServerState {
  if (connection === undefined) return { name, status: 'pending' };
  return connection.status === 'failed' ? { name, status: 'failed', error: connection.error } : { name, status: 'connected' };
}

function positive(value: string | undefined): number | undefined {
  const n = value === undefined ? NaN : Number(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
