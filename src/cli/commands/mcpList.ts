/**
 * `agentloop mcp list` and `agentloop mcp get NAME`, after Claude Code's `claude mcp list` / `claude mcp get`: the MCP
 * servers of Claude Code's three scopes (../../tools/mcp/scopes.ts: user, project, local; the one a name's run would
 * start), each with its scope, its transport and its health: started as a run starts it (contained, `MCP_TIMEOUT`),
 * connected and its tools listed, then stopped. A `.mcp.json` server not yet approved is `pending` and is not started
 * (a repository's own files do not run before they are approved, as Claude Code's list does). `--output-format json`
 * gives the same as data. Exit 0 (whatever the servers' health, as Claude Code's); `get` of an unknown name: 1.
 */
import type { CliOptions } from '../commandLine/args.js';
import type { McpScope } from '../../tools/mcp/scopes.js';
import type { McpServerConfig } from '../../tools/mcp/config.js';
import { jsonLine, learnSecrets, shown } from '../printers/terminal.js';
import { mcpSecrets } from '../../core/credentials.js';

export interface McpListEntry {
  name: string;
  scope: McpScope;
  type: McpServerConfig['type'];
  /** `connected`: started and its tools listed; `failed`: why in `error`; `pending`: a project server not approved. */
  status: 'connected' | 'failed' | 'pending';
  /** The tools it lists (connected servers). */
  tools?: string[];
  error?: string;
  config: McpServerConfig;
}

interface Io {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  version: string;
}

export async function mcpCommand(options: CliOptions, io: Io): Promise<number> {
  const action = options.mcpAction ?? { verb: 'list' };
  const { entries, names } = await checkedServers(io, action.verb === 'get' ? action.name : undefined, options.settingSources);
  const json = options.outputFormat === 'json';
  if (action.verb === 'list') {
    if (json) io.stdout.write(jsonLine(entries.map(dataOf)));
    else io.stdout.write(entries.length === 0 ? `${NONE}\n` : entries.map((e) => `${listLine(e)}\n`).join(''));
    return 0;
  }
  const entry = entries.find((e) => e.name === action.name);
  if (entry === undefined) {
    io.stderr.write(`agentloop: no MCP server named ${JSON.stringify(shown(action.name))}${names.length ? ` (configured: ${shown(names.join(', '))})` : ''}\n`);
    return 1;
  }
  io.stdout.write(json ? jsonLine(dataOf(entry)) : `${getLines(entry).join('\n')}\n`);
  return 0;
}

const NONE = 'No MCP servers configured: add them to ~/.claude.json or .mcp.json (docs/mcp.md), or give a run --mcp-config.';

/**
 * The servers of the scopes as a run would start them (`only`: that name alone), each checked, and the names of all.
 * Lines about files that cannot be read go to stderr, as a run's do.
 */
async function checkedServers(io: Io, only: string | undefined, sources: readonly string[] | undefined): Promise<{ entries: McpListEntry[]; names: string[] }> {
  const { scopedMcpServers, startMcpServers, mcpToolName } = await import('../../tools/mcp/index.js');
  const read = (interactive: boolean, warn: (line: string) => void) =>
    scopedMcpServers({ cwd: io.cwd, env: io.env, interactive, warn, ...(sources !== undefined ? { sources } : {}) });
  const all = read(false, (line) => io.stderr.write(`${shown(line)}\n`));
  const approved = read(true, () => {});
  // What is printed of them never shows their env values, headers or a URL's credentials (core/credentials.ts).
  learnSecrets(mcpSecrets(all, io.env));
  const chosen = Object.entries(all).filter(([name]) => only === undefined || name === only);
  const pending = (name: string) => all[name]?.scope === 'project' && approved[name]?.scope !== 'project';
  const toStart = chosen.filter(([name]) => !pending(name));
  const servers = startMcpServers(Object.fromEntries(toStart.map(([name, { scope: _scope, ...config }]) => [name, config])), { cwd: io.cwd, env: io.env, version: io.version });
  try {
    await servers.ready();
    const states = new Map(servers.states().map((state) => [state.name, state]));
    const tools = servers.tools().map((tool) => tool.name);
    const entries = chosen.map(([name, { scope, ...config }]) => {
      const state = states.get(name);
      const entry: McpListEntry = { name, scope, type: config.type, status: state?.status === 'connected' ? 'connected' : state ? 'failed' : 'pending', config };
      if (entry.status === 'connected') {
        const prefix = mcpToolName(name, '');
        entry.tools = tools.filter((tool) => tool.startsWith(prefix)).map((tool) => tool.slice(prefix.length));
      }
      if (state?.error !== undefined) entry.error = state.error;
      return entry;
    });
    return { entries, names: Object.keys(all) };
  } finally {
    await servers.close();
  }
}

/** Where a server is: its command line, or its URL and transport, as Claude Code's list says it. */
function target(config: McpServerConfig): string {
  if (config.type === 'stdio') return [config.command, ...config.args].join(' ');
  return `${config.url} (${config.type === 'sse' ? 'SSE' : 'HTTP'})`;
}

function statusText(entry: McpListEntry): string {
  if (entry.status === 'connected') return `✓ Connected, ${entry.tools?.length ?? 0} tools`;
  if (entry.status === 'pending') return '⏸ Pending approval (name it in "enabledMcpjsonServers" in .claude/settings.local.json)';
  return `✗ Failed to connect: ${(entry.error ?? 'no reason given').replace(/\s*\n\s*/g, ' ').trim()}`;
}

/** `NAME: TARGET - STATUS [SCOPE]`: Claude Code's line with the scope after it. */
function listLine(entry: McpListEntry): string {
  return shown(`${entry.name}: ${target(entry.config)} - ${statusText(entry)} [${entry.scope}]`);
}

const SCOPES: Record<McpScope, string> = {
  user: 'User config (available in all your projects)',
  project: 'Project config (shared via .mcp.json)',
  local: 'Local config (private to you in this project)',
};

/** Claude Code's `mcp get` lines; the values of `env` and `headers` are not printed (they are where credentials go). */
function getLines(entry: McpListEntry): string[] {
  const { config } = entry;
  const lines = [`${entry.name}:`, `  Scope: ${SCOPES[entry.scope]}`, `  Status: ${statusText(entry)}`, `  Type: ${config.type}`];
  if (config.type === 'stdio') {
    lines.push(`  Command: ${config.command}`, `  Args: ${config.args.join(' ')}`);
    if (Object.keys(config.env).length) lines.push(`  Environment: ${Object.keys(config.env).join(', ')} (values not shown)`);
  } else {
    lines.push(`  URL: ${config.url}`);
    if (Object.keys(config.headers).length) lines.push(`  Headers: ${Object.keys(config.headers).join(', ')} (values not shown)`);
  }
  if (entry.tools?.length) lines.push(`  Tools: ${entry.tools.join(', ')}`);
  return lines.map(shown);
}

/** An entry as data: what `get` prints, with the names (not the values) of `env` and `headers`. */
function dataOf(entry: McpListEntry): Record<string, unknown> {
  const { config, ...rest } = entry;
  const where = config.type === 'stdio' ? { command: config.command, args: config.args, env: Object.keys(config.env) } : { url: config.url, headers: Object.keys(config.headers) };
  return { ...rest, ...where };
}
