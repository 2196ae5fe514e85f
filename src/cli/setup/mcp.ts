/**
 * `--mcp-config FILE|JSON` (repeatable) and `--strict-mcp-config` for every entry point: the servers start as soon as
 * the command line is read, beside the rest of the start-up; the first request waits until each has connected or
 * failed (at most `MCP_TIMEOUT`, 30 s by default), as Claude Code's `-p` does, so that its tool list and the init
 * line's `mcp_servers` statuses are settled. A server that failed is listed `failed` and left out; the run goes on.
 * Besides `--mcp-config`, `-p` and the REPL read the servers of Claude Code's scopes (`.mcp.json`, `~/.claude.json`),
 * which `--strict-mcp-config` leaves out, as Claude Code does. With `--sandbox`, stdio servers start in the bash tool's
 * sandbox (read-only system but the working directory, no network, secrets hidden).
 */
import type { CliOptions } from '../commandLine/args.js';
import { withRun, type RunSetup } from './runSetup.js';
import type { McpServers } from '../../tools/mcp/servers.js';
import type { McpServerConfig } from '../../tools/mcp/config.js';
import { learnSecrets, shown } from '../printers/terminal.js';
import { mcpSecrets } from '../../core/credentials.js';

/**
 * Which MCP servers a command reads besides `--mcp-config`: none (the worker, the demo), or Claude Code's three scopes
 * (../../tools/mcp/scopes.ts) as `-p` reads them (project servers not disabled) or as a session that could ask does (the
 * REPL: project servers once approved).
 */
export type McpScopes = 'none' | 'print' | 'interactive';

/**
 * The servers of the scopes and of `options.mcpConfig` (which wins a name; with `--strict-mcp-config` the only ones),
 * started; undefined without any. Throws McpConfigError on a bad `--mcp-config`; a scope's bad file or server is a
 * line through `warn` and is left out.
 */
export async function startCliMcp(
  options: McpOptions,
  cwd: string,
  env: NodeJS.ProcessEnv,
  version: string,
  scopes: { read: McpScopes; warn: (line: string) => void } = { read: 'none', warn: () => {} },
): Promise<McpServers | undefined> {
  return startConfigs(await cliMcpConfigs(options, cwd, env, scopes), options, cwd, env, version);
}

type McpOptions = Pick<CliOptions, 'mcpConfig' | 'sandbox'> & Partial<Pick<CliOptions, 'strictMcpConfig' | 'settingSources'>>;

/** The configurations startCliMcp starts, not started yet (the same throws and lines). */
export async function cliMcpConfigs(options: McpOptions, cwd: string, env: NodeJS.ProcessEnv, scopes: { read: McpScopes; warn: (line: string) => void }): Promise<Record<string, McpServerConfig>> {
  const read = options.strictMcpConfig ? 'none' : scopes.read;
  const configs: Record<string, McpServerConfig> = {};
  if (!options.mcpConfig?.length && read === 'none') return configs;
  // The config and the scopes are plain files read; the MCP SDK (and ajv, zod) loads only once a server is to start.
  const [{ loadMcpConfigs }, { scopedMcpServers }] = await Promise.all([import('../../tools/mcp/config.js'), import('../../tools/mcp/scopes.js')]);
  if (read !== 'none') {
    const scoped = scopedMcpServers({ cwd, env, interactive: read === 'interactive', warn: scopes.warn, ...(options.settingSources !== undefined ? { sources: options.settingSources } : {}) });
    for (const [name, { scope: _scope, ...config }] of Object.entries(scoped)) configs[name] = config;
  }
  return Object.assign(configs, loadMcpConfigs(options.mcpConfig ?? [], env, cwd));
}

/** Starts `configs` as the command line's servers are started (the sandbox with --sandbox); undefined when empty. */
export async function startConfigs(configs: Record<string, McpServerConfig>, options: McpOptions, cwd: string, env: NodeJS.ProcessEnv, version: string): Promise<McpServers | undefined> {
  if (Object.keys(configs).length === 0) return undefined;
  // Their env values, headers and URL credentials are never shown from here on (core/credentials.ts).
  learnSecrets(mcpSecrets(configs, env));
  const { startMcpServers } = await import('../../tools/mcp/servers.js');
  return startMcpServers(configs, { cwd, env, version, ...(options.sandbox ? { sandbox: {} } : {}) });
}

/**
 * `setup` with the servers' tools and states, once each has connected or failed; one line through `warn` for each
 * server that failed (its error on one line, secrets cut and control characters shown as `terminal.ts` shows every
 * text from outside), as the init line says `failed`.
 */
export async function withMcpTools(setup: RunSetup, servers: McpServers | undefined, warn: (line: string) => void): Promise<RunSetup> {
  if (servers === undefined) return setup;
  await settleMcp(servers, warn);
  return { ...withRun(setup, { addTools: servers.tools() }), mcpStates: servers.states() };
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
