/**
 * An agent of the MCP stop tests (test/tools/mcp/mcpStop.process.test.ts): a process of the user's own (test/support/users.ts)
 * that starts one stdio MCP server per line of stdin (startMcpServers, the built one in dist/), stops it (`close()`) at
 * the point the line names, and answers a line once the stop has resolved. Every process of the server carries the
 * line's marker in its environment (AGENTLOOP_TEST_MARKER), bubblewrap's included.
 */
import { fileURLToPath } from 'node:url';
import { startLineAgent, type LineAgent } from './lineAgent.js';

export type StopWay = 'plain' | 'contained' | 'sandboxed';

/**
 * When the stop comes: `{ afterMs }` that long after the start (bubblewrap still setting the namespace up), `running`
 * once the server's own process (its command line starts with the server's command) is seen, `connected` once it has
 * answered.
 */
export type StopPoint = { afterMs: number } | 'running' | 'connected';

export interface StopCase {
  /** The server's command and arguments. */
  argv: string[];
  marker: string;
  cwd: string;
  at: StopPoint;
}

/** The agent: `run` resolves with the server's state when it was stopped, once the stop has resolved. */
export type StopAgent = LineAgent<StopCase, string>;

const SERVERS = JSON.stringify(fileURLToPath(new URL('../../dist/tools/mcp/servers.js', import.meta.url)));

const AGENT = `
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { startMcpServers } from ${SERVERS};
const way = process.argv[1];
const options = way === 'plain' ? { contain: false } : way === 'sandboxed' ? { sandbox: {} } : {};
const seen = (start, marker) => readdirSync('/proc').some((p) => {
  try {
    return readFileSync('/proc/' + p + '/cmdline', 'utf8').startsWith(start + '\\0')
      && readFileSync('/proc/' + p + '/environ', 'utf8').split('\\0').includes('AGENTLOOP_TEST_MARKER=' + marker);
  } catch { return false; }
});
const until = (check) => new Promise((resolve) => { const look = () => (check() ? resolve() : setTimeout(look, 2)); look(); });
for await (const line of createInterface({ input: process.stdin })) {
  const { argv: [command, ...args], marker, cwd, at } = JSON.parse(line);
  const mcp = startMcpServers({ s: { type: 'stdio', command, args, env: { AGENTLOOP_TEST_MARKER: marker } } }, { cwd, ...options });
  if (at.afterMs !== undefined) await new Promise((r) => setTimeout(r, at.afterMs));
  else if (at === 'running') await until(() => seen(command, marker));
  else await mcp.ready();
  const state = mcp.states()[0].status;
  await mcp.close();
  process.stdout.write(JSON.stringify(state) + '\\n');
}`;

/** Starts the agent of `way` as the user `prefix` names (test/support/users.ts). */
export function startStopAgent(prefix: string[], way: StopWay): StopAgent {
  // No HOME of the user's: bash reads ~/.bashrc when its stdin is a socket (the server's is), and the bwrap probe
  // of choose.ts runs bash; a slow .bashrc made that probe time out, and the unshare way was chosen instead.
  return startLineAgent(prefix, AGENT, way, '/nonexistent');
}
