/**
 * `--mcp-config FILE|JSON` (repeatable) and `--strict-mcp-config` for every entry point: the servers start as soon as
 * the command line is read, beside the rest of the start-up; the first request waits until each has connected or
 * failed (at most `MCP_TIMEOUT`, 30 s by default), as Claude Code's `-p` does, so that its tool list and the init
 * line's `mcp_servers` statuses are settled. A server that failed is listed `failed` and left out; the run goes on.
 * agentloop reads MCP servers from no other place than `--mcp-config`, so `--strict-mcp-config` (use only those)
 * changes nothing and is taken for Claude Code's scripts. With `--sandbox`, stdio servers start in the bash tool's
 * sandbox (read-only system but the working directory, no network, secrets hidden).
 */
import type { CliOptions } from './args.js';
import type { ModelChoice } from './start.js';
import type { McpServers } from '../tools/mcp/servers.js';
import { shown } from './terminal.js';

/** The servers of `options.mcpConfig`, started; undefined without any. Throws McpConfigError on a bad config. */
export async function startCliMcp(options: Pick<CliOptions, 'mcpConfig' | 'sandbox'>, cwd: string, env: NodeJS.ProcessEnv, version: string): Promise<McpServers | undefined> {
  if (!options.mcpConfig?.length) return undefined;
  const { loadMcpConfigs, startMcpServers } = await import('../tools/mcp/index.js');
  const configs = loadMcpConfigs(options.mcpConfig, env, cwd);
  if (Object.keys(configs).length === 0) return undefined;
  return startMcpServers(configs, { cwd, env, version, ...(options.sandbox ? { sandbox: {} } : {}) });
}

/**
 * `choice` with the servers' tools and states, once each has connected or failed; one line through `warn` for each
 * server that failed (its error on one line, secrets cut and control characters shown as `terminal.ts` shows every
 * text from outside), as the init line says `failed`.
 */
export async function withMcpTools(choice: ModelChoice, servers: McpServers | undefined, warn: (line: string) => void): Promise<ModelChoice> {
  if (servers === undefined) return choice;
  await settleMcp(servers, warn);
  return { ...choice, addTools: servers.tools(), mcpStates: servers.states() };
}

/** Waits until each server has connected or failed; one line through `warn` for each that failed. */
export async function settleMcp(servers: McpServers, warn: (line: string) => void): Promise<void> {
  await servers.ready();
  for (const state of servers.states()) {
    if (state.status !== 'failed') continue;
    const why = shown((state.error ?? 'no reason given').replace(/\s*\n\s*/g, ' ').trim());
    warn(`agentloop: MCP server ${JSON.stringify(state.name)} failed to start, its tools are left out: ${why}`);
  }
}
