/**
 * The credentials agentloop is given besides the API key and the environment's own secrets: the OTLP exporters'
 * headers and endpoints (`OTEL_EXPORTER_OTLP[_SIGNAL]_HEADERS`, a user, password or query in `..._ENDPOINT`), and MCP
 * servers' `env` values, `headers` and URLs (from .mcp.json, --mcp-config, the SDK's mcpServers, runAgent's). Each is
 * a value never shown (core/redact.ts cuts it from every text agentloop writes); a value is also taken as the form it
 * is sent in (a header's `Bearer TOKEN` and its TOKEN, a query's value as written and decoded).
 */
import type { SecretValue } from './redact.js';

type Env = Readonly<Record<string, string | undefined>>;

/** OTLP exporters' header variables: `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TRACES_HEADERS`, ... */
export const OTLP_HEADERS = /^OTEL_EXPORTER_[A-Z0-9_]*HEADERS$/;
/** OTLP exporters' endpoint variables. */
const OTLP_ENDPOINT = /^OTEL_EXPORTER_[A-Z0-9_]*ENDPOINT$/;

/** Header names that carry no credential (their values are not cut out of what is written). */
const PLAIN_HEADERS = new Set([
  'accept', 'accept-encoding', 'accept-language', 'cache-control', 'connection', 'content-encoding', 'content-language',
  'content-type', 'mcp-protocol-version', 'user-agent',
]);

/** `text` decoded as a URL's or a header list's part is (`%XX`), or as it is when it is not such a text. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `value` as it is and decoded; of `Bearer T` (`Basic T`, any auth scheme) the token T alone, so that what is cut reads
 * `Bearer [redacted NAME]`, and a token the agent knows under another name (its own key) keeps that name.
 */
function forms(name: string, value: string): SecretValue[] {
  const out = new Set<string>();
  for (const v of [value.trim(), decoded(value).trim()]) out.add(/^[A-Za-z][A-Za-z0-9-]*\s+(\S+)$/.exec(v)?.[1] ?? v);
  return [...out].filter((v) => v !== '').map((v) => ({ name, value: v }));
}

/** The credentials of a URL: its user, its password and the values of its query. */
export function urlSecrets(name: string, raw: string): SecretValue[] {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return [];
  }
  const out: SecretValue[] = [];
  if (url.username) out.push(...forms(name, url.username));
  if (url.password) out.push(...forms(name, url.password));
  for (const part of url.search.slice(1).split('&')) {
    const at = part.indexOf('=');
    if (at > 0) out.push(...forms(name, part.slice(at + 1)), ...forms(name, part.slice(at + 1).replace(/\+/g, ' ')));
  }
  return out;
}

/** The values of headers given as a record: each header's, but the plainly harmless ones (`Content-Type`, ...). */
export function headerSecrets(name: string, headers: Readonly<Record<string, string>>): SecretValue[] {
  return Object.entries(headers).flatMap(([header, value]) => (PLAIN_HEADERS.has(header.trim().toLowerCase()) ? [] : forms(name, value)));
}

/** The headers of an OTLP header variable: `k1=v1,k2=v2` (values URL-encoded, as the specification says). */
function otlpHeaderList(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) headers[decoded(pair.slice(0, at).trim())] = pair.slice(at + 1);
  }
  return headers;
}

/** The OTLP exporters' credentials in `env`: every header's value (and the variable whole), and each endpoint's. */
export function otlpSecrets(env: Env): SecretValue[] {
  const out: SecretValue[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.trim() === '') continue;
    if (OTLP_HEADERS.test(name)) out.push({ name, value: value.trim() }, ...headerSecrets(name, otlpHeaderList(value)));
    else if (OTLP_ENDPOINT.test(name)) out.push(...urlSecrets(name, value));
  }
  return out;
}

/** An MCP server's configuration, as far as its credentials go (tools/mcp/config.ts's shapes). */
export interface McpCredentialSource {
  type?: string;
  url?: string;
  env?: Readonly<Record<string, string>>;
  headers?: Readonly<Record<string, string>>;
}

/**
 * The credentials of MCP servers' configurations: every `env` value the agent's own environment does not hold as it
 * is (`"PATH": "${PATH}"` passes the agent's on: no new secret; one of the agent's credentials is already one), every
 * header's value but the harmless ones, and the user, password and query of a URL. Named `mcp server NAME`.
 */
export function mcpSecrets(servers: Readonly<Record<string, McpCredentialSource>>, agentEnv: Env = {}): SecretValue[] {
  const out: SecretValue[] = [];
  for (const [server, config] of Object.entries(servers)) {
    const name = `mcp server ${server}`;
    for (const [variable, value] of Object.entries(config.env ?? {})) if (agentEnv[variable] !== value && value.trim() !== '') out.push(...forms(name, value));
    if (config.headers) out.push(...headerSecrets(name, config.headers));
    if (typeof config.url === 'string') out.push(...urlSecrets(name, config.url));
  }
  return out;
}
