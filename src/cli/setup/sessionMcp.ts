/**
 * The MCP servers of a stream-json session (the Claude Agent SDK's engine): those of `--mcp-config` and of the scopes
 * (./mcp.ts), started at once; or, with `--await-initialize`, when the `initialize` request comes, with the servers it
 * names (`mcpServers`) added. That is how SDK 0.3.335 hands over a program's `mcpServers` that Claude Code runs or
 * connects to (stdio, http, sse), and agentloop takes them as Claude Code does, as one more `--mcp-config` item:
 * checked by the same code (`${VAR}` expanded; a bad one refuses the initialize, nothing started), a name given there
 * replacing one of the command line or the scopes, only these and `--mcp-config`'s under `--strict-mcp-config` (the
 * SDK's `strictMcpConfig`), started with the same environment rules, in the same containment or sandbox, listed in
 * the init line and by `mcp_status`, stopped with the session and killed with the agent. A user message that comes
 * before any initialize starts the session's servers without such additions.
 */
import type { Tool } from '../../core/tool.js';
import { parseMcpConfig, type McpServerConfig } from '../../tools/mcp/config.js';
import type { McpServerState, McpServers } from '../../tools/mcp/servers.js';

/** Starts configurations and resolves once each server has connected or failed (undefined for none). */
export type McpLauncher = (configs: Record<string, McpServerConfig>) => Promise<McpServers | undefined>;

export class SessionMcp {
  private started: Promise<McpServers | undefined> | undefined;
  private servers: McpServers | undefined;

  constructor(
    private readonly configs: Record<string, McpServerConfig>,
    private readonly launch: McpLauncher,
    /** `--await-initialize`: the servers start with the initialize request's. */
    readonly awaitsInitialize: boolean,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  /** Whether the servers have been started (or are starting). */
  get starting(): boolean {
    return this.started !== undefined;
  }

  /** Whether an initialize request's servers would be taken: `--await-initialize`, and nothing started yet. */
  takesInitialize(): boolean {
    return this.awaitsInitialize && this.started === undefined;
  }

  /**
   * Starts the servers, once (a later call gives the same), with `extra` (an initialize's `mcpServers`) added. `extra`
   * is checked first: a bad one throws McpConfigError and starts nothing. Resolves once each has connected or failed.
   */
  start(extra?: unknown): Promise<McpServers | undefined> {
    if (this.started) return this.started;
    const added = extra === undefined ? {} : parseMcpConfig(JSON.stringify({ mcpServers: extra }), this.env, 'initialize: mcpServers');
    const started = this.launch({ ...this.configs, ...added }).then((servers) => (this.servers = servers));
    this.started = started;
    // A start that could not be made (no bubblewrap for --sandbox) may be asked for again.
    started.catch(() => {
      if (this.started === started) this.started = undefined;
    });
    return started;
  }

  states(): McpServerState[] {
    return this.servers?.states() ?? [];
  }

  tools(): Tool[] {
    return this.servers?.tools() ?? [];
  }

  /** Stops every server (once a start under way has settled). */
  async close(): Promise<void> {
    const servers = await this.started?.catch(() => undefined);
    await servers?.close();
  }
}
