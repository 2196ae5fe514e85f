/**
 * `runAgent({ mcpServers })`: MCP servers that live as long as one run (tools/mcp/). They start when the run starts,
 * all at once; the run waits until each has connected or failed (at most `MCP_TIMEOUT`, 30 s, as the CLI's `-p` and
 * Claude Code's do), so that the first request's tool list is settled; their tools join the run's after `tools` and
 * `addTools`; they stop when the run ends, however it ends. A server that failed is left out and the run goes on: the
 * result's `mcpServers` says which and why. With `sandbox`, stdio servers start in the bash tool's sandbox.
 *
 * The MCP SDK is loaded only by a run that has servers.
 */
import { mcpSecrets, type McpCredentialSource } from '../core/credentials.js';
import type { LearningRedactor, Redactor } from '../core/redact.js';
import type { Tool } from '../core/tool.js';
import { clientSecrets, credentialRedactor } from '../tools/bash/judge/secrets.js';
import type { McpServerConfigInput } from '../tools/mcp/config.js';
import type { McpSdkServer, McpServerSpec, McpServerState } from '../tools/mcp/servers.js';

/** A server as `runAgent`'s `mcpServers` takes it: Claude Code's and the Agent SDK's shapes, in-process ones too. */
export type McpServerOption = McpServerConfigInput | McpSdkServer;

export interface McpRunOptions {
  mcpServers: Readonly<Record<string, McpServerOption>>;
  cwd: string;
  sandbox?: boolean;
  signal?: AbortSignal;
}

/**
 * Runs `run` with the tools of `options.mcpServers`' servers, started for it and stopped after it; `run`'s result with
 * the servers' states. A bad configuration throws McpConfigError before anything starts.
 */
export async function withMcpServers<R>(options: McpRunOptions, run: (tools: Tool[]) => Promise<R>): Promise<R & { mcpServers: McpServerState[] }> {
  const { mcpServerConfig, startMcpServers } = await import('../tools/mcp/index.js');
  const specs: Record<string, McpServerSpec> = {};
  for (const [name, server] of Object.entries(options.mcpServers)) specs[name] = server.type === 'sdk' ? server : mcpServerConfig(name, server);
  const servers = startMcpServers(specs, { cwd: options.cwd, ...(options.sandbox ? { sandbox: {} } : {}) });
  try {
    await settledOrAborted(servers.ready(), options.signal);
    const states = servers.states();
    return { ...(await run(servers.tools())), mcpServers: states };
  } finally {
    await servers.close();
  }
}

/**
 * The run's redactor, knowing the servers' credentials (their `env` values, headers, a URL's user, password and query:
 * core/credentials.ts): the one given, told them when it learns (core/redact.ts), else the default one of process.env.
 */
export function mcpRedactor(servers: McpRunOptions['mcpServers'], given: Redactor | undefined, client?: Parameters<typeof clientSecrets>[0]): Redactor {
  const secrets = mcpSecrets(servers as Record<string, McpCredentialSource>, process.env);
  if (given === undefined) return credentialRedactor(process.env, client, secrets);
  (given as Partial<LearningRedactor>).learn?.(secrets);
  return given;
}

/** `ready`, or at once when `signal` aborts (the run then ends as aborted without waiting for slow servers). */
async function settledOrAborted(ready: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return;
  if (signal === undefined) return ready;
  let onAbort = () => {};
  const aborted = new Promise<void>((resolve) => (onAbort = () => resolve()));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await Promise.race([ready, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
