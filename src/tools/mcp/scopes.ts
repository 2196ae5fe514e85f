/**
 * The MCP servers Claude Code reads besides `--mcp-config`, in its three scopes (what Claude Code 2.1.197 does, read
 * from its bundle: `claude mcp add --scope`):
 *
 * - user: `mcpServers` at the top of `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json` when that is set);
 * - project: `.mcp.json` of the working directory and of each folder above it (the nearer one wins a name), each
 *   server only once approved: named in no `disabledMcpjsonServers`, and, in an interactive session, named in
 *   `enabledMcpjsonServers` or allowed by `enableAllProjectMcpServers` (Claude Code asks; agentloop's REPL leaves it
 *   out and says how to approve it). `-p` takes every project server not disabled, as Claude Code's `-p` does;
 * - local: `projects[<project>].mcpServers` of `~/.claude.json`, the project being the git repository's top folder
 *   (a worktree's main one) or else the working directory.
 *
 * The same name in several scopes: local wins over project, project over user. The approvals are read from Claude
 * Code's settings files (`~/.claude/settings.json`, `.claude/settings.json` (only once the project is trusted:
 * `hasTrustDialogAccepted`), `.claude/settings.local.json`) and from the project's entry in `~/.claude.json`, where
 * older versions kept them; `--setting-sources` (user, project, local) chooses which scopes and files are read.
 * A file that is not JSON, or a server that is not valid, is left out with one line through `warn`; nothing throws.
 * So is a `.mcp.json` server saying `"sandbox": false` (agentloop's extension, ./config.ts): a repository does not take
 * its own server out of the sandbox.
 */
import { existsSync } from 'node:fs';
import { readTextUpTo } from '../../core/boundedRead.js';
import { dirname, join, parse, resolve } from 'node:path';
import { projectKeyOf } from '../../settings/trust.js';
import { MAX_CONFIG_BYTES, McpConfigError, parseMcpConfig, type McpServerConfig } from './config.js';

export type McpScope = 'user' | 'project' | 'local';

export interface McpScopeOptions {
  cwd: string;
  /** `HOME`, `CLAUDE_CONFIG_DIR` and the variables `${VAR}` expands. */
  env: Readonly<Record<string, string | undefined>>;
  /** `--setting-sources`: the scopes read; all three when undefined. */
  sources?: readonly string[];
  /** A session that could ask (the REPL): project servers need an approval. */
  interactive: boolean;
  warn: (line: string) => void;
}

interface Approvals {
  enabled: Set<string>;
  disabled: Set<string>;
  all: boolean;
}

/** The servers of the three scopes merged, local over project over user, with the scope each came from. */
export function scopedMcpServers(options: McpScopeOptions): Record<string, McpServerConfig & { scope: McpScope }> {
  const read = (scope: McpScope) => options.sources === undefined || options.sources.includes(scope);
  const claudeJson = claudeJsonOf(options);
  const projectKey = projectKeyOf(options.cwd);
  const entry = record(record(claudeJson.json.projects)[projectKey]);
  const merged: Record<string, McpServerConfig & { scope: McpScope }> = {};
  const add = (scope: McpScope, servers: Record<string, McpServerConfig>) => {
    for (const [name, server] of Object.entries(servers)) merged[name] = { ...server, scope };
  };
  if (read('user')) add('user', serversOf(claudeJson.json.mcpServers, claudeJson.path, options));
  if (read('project')) add('project', approvedOnly(projectServers(options), approvalsOf(options, entry, read), options));
  if (read('local')) add('local', serversOf(entry.mcpServers, `${claudeJson.path} (project ${projectKey})`, options));
  return merged;
}

function claudeJsonOf(options: McpScopeOptions): { path: string; json: Record<string, unknown> } {
  const path = join(options.env.CLAUDE_CONFIG_DIR || homeOf(options), '.claude.json');
  return { path, json: readJson(path, options.warn) };
}

function homeOf(options: McpScopeOptions): string {
  return options.env.HOME || '/';
}

/** `.mcp.json` of each folder from the top down to `cwd` (the root itself left out, as Claude Code does). */
function projectServers(options: McpScopeOptions): Record<string, McpServerConfig> {
  const folders: string[] = [];
  for (let folder = resolve(options.cwd); folder !== parse(folder).root; folder = dirname(folder)) folders.unshift(folder);
  const servers: Record<string, McpServerConfig> = {};
  for (const folder of folders) {
    const path = join(folder, '.mcp.json');
    if (existsSync(path)) Object.assign(servers, serversOf(readJson(path, options.warn).mcpServers, path, options));
  }
  for (const [name, server] of Object.entries(servers)) {
    if (server.type !== 'stdio' || server.sandbox !== false) continue;
    // agentloop's extension: a repository does not take its own server out of the sandbox the user asked for.
    delete servers[name];
    options.warn(`agentloop: MCP server ${JSON.stringify(name)} of .mcp.json left out: "sandbox": false is taken only from --mcp-config and ~/.claude.json`);
  }
  return servers;
}

function approvedOnly(servers: Record<string, McpServerConfig>, approvals: Approvals, options: McpScopeOptions): Record<string, McpServerConfig> {
  const approved: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(servers)) {
    if (approvals.disabled.has(name)) continue;
    if (options.interactive && !approvals.all && !approvals.enabled.has(name)) {
      options.warn(
        `agentloop: MCP server ${JSON.stringify(name)} of .mcp.json is not approved, its tools are left out: ` +
          `name it in "enabledMcpjsonServers" (or set "enableAllProjectMcpServers": true) in .claude/settings.local.json`,
      );
      continue;
    }
    approved[name] = server;
  }
  return approved;
}

/** The approvals of the settings files and of the project's entry in ~/.claude.json, merged. */
function approvalsOf(options: McpScopeOptions, entry: Record<string, unknown>, read: (scope: McpScope) => boolean): Approvals {
  const configDir = options.env.CLAUDE_CONFIG_DIR || join(homeOf(options), '.claude');
  const files: string[] = [];
  if (read('user')) files.push(join(configDir, 'settings.json'));
  if (read('project') && entry.hasTrustDialogAccepted === true) files.push(join(options.cwd, '.claude', 'settings.json'));
  if (read('local')) files.push(join(options.cwd, '.claude', 'settings.local.json'));
  const approvals: Approvals = { enabled: new Set(), disabled: new Set(), all: false };
  for (const settings of [entry, ...files.filter(existsSync).map((path) => readJson(path, options.warn))]) {
    for (const name of strings(settings.enabledMcpjsonServers)) approvals.enabled.add(name);
    for (const name of strings(settings.disabledMcpjsonServers)) approvals.disabled.add(name);
    if (settings.enableAllProjectMcpServers === true) approvals.all = true;
  }
  return approvals;
}

/** Each server of `raw` (an `mcpServers` object) that is valid; one line through `warn` for each that is not. */
function serversOf(raw: unknown, where: string, options: McpScopeOptions): Record<string, McpServerConfig> {
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, config] of Object.entries(record(raw))) {
    try {
      Object.assign(servers, parseMcpConfig(JSON.stringify({ mcpServers: { [name]: config } }), options.env, where));
    } catch (error) {
      if (!(error instanceof McpConfigError)) throw error;
      options.warn(`agentloop: MCP server ${JSON.stringify(name)} left out: ${error.message}`);
    }
  }
  return servers;
}

/**
 * A JSON file's object; {} when it is missing, and with one line through `warn` when it cannot be read or parsed.
 * A file behind a folder this user cannot enter (HOME=/root as nobody: EACCES) counts as missing, as existsSync says:
 * whether it exists is unknowable, and a warning on every run would be noise.
 */
function readJson(path: string, warn: (line: string) => void): Record<string, unknown> {
  let text: string;
  try {
    text = readTextUpTo(path, MAX_CONFIG_BYTES);
  } catch (error) {
    if ((error as Error).name === 'FileTooLargeError') {
      warn(`agentloop: ${(error as Error).message}: its MCP servers are left out`);
      return {};
    }
    const code = (error as NodeJS.ErrnoException).code;
    const missing = code === 'ENOENT' || code === 'ENOTDIR' || (code === 'EACCES' && !existsSync(path));
    if (!missing) warn(`agentloop: cannot read ${path} (${code ?? (error as Error).message}), its MCP servers are left out`);
    return {};
  }
  try {
    return record(JSON.parse(text));
  } catch (error) {
    warn(`agentloop: ${path} is not valid JSON (${(error as Error).message}), its MCP servers are left out`);
    return {};
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The key of the project in ~/.claude.json (settings/trust.ts), which the project scope's servers are kept under. */
export { projectKeyOf };
