/**
 * MCP server configuration in Claude Code's format, as `--mcp-config` takes it (a file, or the JSON text itself):
 *
 *     {"mcpServers": {"NAME": {"type": "stdio", "command": "npx", "args": ["-y", "pkg"], "env": {"K": "${K}"}},
 *                     "OTHER": {"type": "http", "url": "https://host/mcp", "headers": {"Authorization": "Bearer ${T}"}}}}
 *
 * `type` may be left out when `command` is given (stdio). `${VAR}` and `${VAR:-default}` are expanded in `command`,
 * `args`, `env`, `url` and `headers` from the agent's environment, as Claude Code does; a variable that is not set and
 * has no default makes the configuration invalid (its message names the server and the variables). Several
 * configurations merge in order, a later server of the same name replacing an earlier one.
 *
 * agentloop's one extension: `"sandbox": false` on a stdio server starts it outside `--sandbox`'s sandbox (still
 * contained, tied to the agent); Claude Code has no such key. A project's `.mcp.json` may not say it (./scopes.ts).
 */
import { readTextUpTo } from '../../core/boundedRead.js';
import { resolve } from 'node:path';

export interface McpStdioConfig {
  type: 'stdio';
  command: string;
  args: string[];
  /** The server's environment besides the MCP SDK's few safe variables (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
  env: Record<string, string>;
  /** `false`: started outside `--sandbox`'s sandbox (agentloop's extension; absent: in it, as commands are). */
  sandbox?: false;
  /** Milliseconds a call of this server's tools may take, over `MCP_TOOL_TIMEOUT` (Claude Code's; below 1000: ignored). */
  timeout?: number;
}

export interface McpHttpConfig {
  /** `http`: streamable HTTP; `sse`: the older HTTP+SSE transport. */
  type: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
  timeout?: number;
}

export type McpServerConfig = McpStdioConfig | McpHttpConfig;

/** A configuration as a program may write it (mcpServerConfig completes it): Claude Code's and the Agent SDK's shapes. */
export type McpServerConfigInput =
  | { type?: 'stdio'; command: string; args?: string[]; env?: Record<string, string>; sandbox?: boolean; timeout?: number }
  | { type: 'http' | 'sse'; url: string; headers?: Record<string, string>; timeout?: number };

/** A configuration's or a flag's problem, in one line. */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}

/** The most of a configuration file read (Claude Code's `~/.claude.json` holds more than servers, so it is generous). */
export const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The servers of `--mcp-config` values (each a file path, relative to `cwd`, or JSON text starting with `{`), merged in
 * order, their `${VAR}`s expanded from `env`. Throws McpConfigError.
 */
export function loadMcpConfigs(values: readonly string[], env: Env, cwd: string): Record<string, McpServerConfig> {
  const servers: Record<string, McpServerConfig> = {};
  for (const value of values) Object.assign(servers, parseMcpConfig(readConfigText(value, cwd), env, describe(value)));
  return servers;
}

function describe(value: string): string {
  return value.trimStart().startsWith('{') ? 'MCP config (JSON)' : `MCP config ${value}`;
}

function readConfigText(value: string, cwd: string): string {
  if (value.trimStart().startsWith('{')) return value;
  try {
    return readTextUpTo(resolve(cwd, value), MAX_CONFIG_BYTES);
  } catch (error) {
    if ((error as Error).name === 'FileTooLargeError') throw new McpConfigError(`cannot read MCP config: ${(error as Error).message}`);
    throw new McpConfigError(`cannot read MCP config ${value}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** The servers of one configuration's text; `where` names it in errors. */
export function parseMcpConfig(text: string, env: Env, where = 'MCP config'): Record<string, McpServerConfig> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(json) || !isRecord(json.mcpServers)) throw new McpConfigError(`${where}: expected {"mcpServers": {"NAME": {...}}}`);
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, raw] of Object.entries(json.mcpServers)) {
    if (name === '') throw new McpConfigError(`${where}: a server's name is empty`);
    servers[name] = expandServer(serverConfig(raw, (why) => new McpConfigError(`${where}: server ${name}: ${why}`)), env, name, where);
  }
  return servers;
}

/**
 * A server's configuration as a program gives it (Claude Code's and the Agent SDK's shapes: `type` may be left out with
 * `command`, `args`, `env` and `headers` may be left out), checked and completed; no variable is expanded. Throws
 * McpConfigError naming the server.
 */
export function mcpServerConfig(name: string, raw: unknown): McpServerConfig {
  return serverConfig(raw, (why) => new McpConfigError(`MCP server ${name}: ${why}`));
}

function serverConfig(raw: unknown, bad: (why: string) => McpConfigError): McpServerConfig {
  if (!isRecord(raw)) throw bad('expected an object');
  const type = raw.type ?? (raw.command !== undefined ? 'stdio' : raw.url !== undefined ? 'http' : undefined);
  if (raw.timeout !== undefined && (typeof raw.timeout !== 'number' || !Number.isFinite(raw.timeout))) throw bad('"timeout" must be a number of milliseconds');
  // Claude Code's per-server bound of a call; below 1000 ms it is ignored (MCP_TOOL_TIMEOUT or the default holds).
  const timeout = typeof raw.timeout === 'number' && raw.timeout >= 1000 ? { timeout: raw.timeout } : {};
  if (type === 'stdio') {
    if (typeof raw.command !== 'string' || raw.command === '') throw bad('"command" must be a non-empty string');
    if (raw.sandbox !== undefined && typeof raw.sandbox !== 'boolean') throw bad('"sandbox" must be true or false');
    const outside = raw.sandbox === false ? { sandbox: false as const } : {};
    return { type, command: raw.command, args: strings(raw.args, 'args', bad), env: stringRecord(raw.env, 'env', bad), ...outside, ...timeout };
  }
  if (type === 'http' || type === 'sse') {
    if (typeof raw.url !== 'string' || raw.url === '') throw bad('"url" must be a non-empty string');
    return { type, url: raw.url, headers: stringRecord(raw.headers, 'headers', bad), ...timeout };
  }
  throw bad(`unknown "type" ${JSON.stringify(type)} (stdio, http or sse)`);
}

function strings(value: unknown, field: string, bad: (why: string) => McpConfigError): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw bad(`"${field}" must be an array of strings`);
  return value;
}

function stringRecord(value: unknown, field: string, bad: (why: string) => McpConfigError): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value) || !Object.values(value).every((v) => typeof v === 'string')) throw bad(`"${field}" must be an object of strings`);
  return value as Record<string, string>;
}

/** `${VAR}` or `${VAR:-default}`. */
const VARIABLE = /\$\{([^}:]+)(?::-([^}]*))?\}/g;

/** `text` with its variables replaced; the names of those unset and without a default go to `missing`. */
export function expandVariables(text: string, env: Env, missing: Set<string>): string {
  return text.replace(VARIABLE, (whole, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined) return value;
    if (fallback !== undefined) return fallback;
    missing.add(name);
    return whole;
  });
}

function expandServer(server: McpServerConfig, env: Env, name: string, where: string): McpServerConfig {
  const missing = new Set<string>();
  const x = (text: string) => expandVariables(text, env, missing);
  const each = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).map(([k, v]) => [k, x(v)]));
  const expanded: McpServerConfig =
    server.type === 'stdio'
      ? { ...server, command: x(server.command), args: server.args.map(x), env: each(server.env) }
      : { ...server, url: x(server.url), headers: each(server.headers) };
  if (missing.size > 0) throw new McpConfigError(`${where}: server ${name}: missing environment variables: ${[...missing].join(', ')}`);
  return expanded;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
