/**
 * `npx tsx bench/mcp.ts [--quick] [--write]`: MCP servers, side by side in one run (issue 28's "measured"), with the
 * real `@modelcontextprotocol/server-everything` over stdio:
 *
 * - a tool call: agentloop's MCP tool (`mcp__every__echo` through startMcpServers: the server contained as bash
 *   commands are) against the MCP SDK's own client calling the same tool of a server it started itself (the server's
 *   own handling plus the transport), and against the bash tool running `echo hello`; interleaved, medians;
 * - start-up: startMcpServers with N servers until `ready()` (each connected and listed), N = 1, 2, 4, against one
 *   bare MCP SDK client connecting to one server;
 * - side by side with Claude Code (bench/mcpPeers.ts): agentloop's CLI and Claude Code's as `-p` processes with the same
 *   `--mcp-config` (server-everything twice) on the same local Messages API server, interleaved rounds: the start-up
 *   (first request, wall to exit) and a call of `mcp__every__echo` in the run (reply's end → next request), with
 *   targets (agentloop not slower: ratio ≤ 1.0). Claude Code is the one `npm ci --prefix bench/peers` installs for
 *   `npm run bench:peers`; when it is missing, agentloop's side runs alone and the rows say Claude Code was skipped.
 *
 * `--write` puts the section between its markers into BENCHMARKS.md (`npm run bench` keeps it, as the peers' one);
 * `--only=cli` runs only the side by side (printed, never written).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createBashTool } from '../src/tools/bash/bashTool.js';
import { startMcpServers } from '../src/tools/mcp/servers.js';
import { everything } from '../test/support/mcp.js';
import { build } from './build.js';
import { replaceMarked } from './marked.js';
import { measureMcp, MCP_SIDES, writeMcpConfig, type McpSide } from './mcpPeers.js';
import { renderMcpCli, type McpCliResults } from './mcpReport.js';
import { CLAUDE_EXE, prepareBench } from './peersSides.js';
import { fmt, median, now } from './stats.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const ROUNDS = quick ? 10 : 60;
const STARTS = quick ? 2 : 7;
const CLI_ROUNDS = quick ? 3 : 15;
const onlyCli = args.includes('--only=cli');
const context = () => ({ signal: new AbortController().signal, cwd: process.cwd() });
const config = () => everything(`bench-${process.pid}`);

async function bareClient(): Promise<Client> {
  const { command, args: argv } = config();
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StdioClientTransport({ command, args: argv, stderr: 'ignore' }));
  return client;
}

/** Median ms of a call of echo: agentloop's MCP tool, the bare client, the bash tool. */
async function calls() {
  const servers = startMcpServers({ every: config() }, { cwd: process.cwd() });
  await servers.ready();
  const echo = servers.tools().find((t) => t.name === 'mcp__every__echo')!;
  const client = await bareClient();
  const bash = createBashTool();
  bash.prepare?.();
  const sides = { agentloop: [] as number[], bare: [] as number[], bash: [] as number[] };
  const once = async (side: keyof typeof sides, run: () => Promise<unknown>) => {
    const start = now();
    await run();
    sides[side].push(now() - start);
  };
  for (let i = 0; i < ROUNDS + 5; i += 1) {
    if (i === 5) for (const list of Object.values(sides)) list.length = 0; // warm-up rounds dropped
    await once('agentloop', () => echo.run({ message: 'hello' }, context()));
    await once('bare', () => client.callTool({ name: 'echo', arguments: { message: 'hello' } }));
    await once('bash', () => bash.run({ command: 'echo hello' }, context()));
  }
  await Promise.all([servers.close(), client.close()]);
  return { agentloop: median(sides.agentloop), bare: median(sides.bare), bash: median(sides.bash) };
}

/** Median ms until N servers are connected and listed; and one bare client connecting. */
async function startups() {
  const figures: Record<string, number[]> = { bare: [], 1: [], 2: [], 4: [] };
  for (let i = 0; i < STARTS; i += 1) {
    let start = now();
    const client = await bareClient();
    await client.listTools();
    figures.bare!.push(now() - start);
    await client.close();
    for (const n of [1, 2, 4]) {
      start = now();
      const servers = startMcpServers(Object.fromEntries(Array.from({ length: n }, (_, k) => [`s${k}`, config()])), { cwd: process.cwd() });
      await servers.ready();
      figures[n]!.push(now() - start);
      if (servers.states().some((s) => s.status !== 'connected')) throw new Error(JSON.stringify(servers.states()));
      await servers.close();
    }
  }
  return Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v)]));
}

/** The CLI side by side: agentloop's and Claude Code's `-p` with the same config and server (agentloop alone without Claude Code). */
async function cliSideBySide(): Promise<McpCliResults> {
  if (!existsSync('/usr/bin/time')) throw new Error('bench/mcp.ts needs GNU time at /usr/bin/time (Debian: apt-get install time)');
  const built = build();
  if (!built.ok) throw new Error(`the build failed: ${built.error}`);
  const claudeSkipped = existsSync(CLAUDE_EXE) ? undefined : 'Claude Code is not installed (`npm ci --prefix bench/peers`)';
  if (claudeSkipped) process.stderr.write(`bench/mcp.ts: Claude Code side by side skipped: ${claudeSkipped}; agentloop's CLI runs alone\n`);
  const sides: McpSide[] = claudeSkipped ? ['agentloop'] : [...MCP_SIDES];
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-mcpbench-'));
  try {
    const bench = prepareBench(dir);
    mkdirSync(bench.workspace, { recursive: true });
    const config = writeMcpConfig(join(dir, 'config'), `bench-${process.pid}`);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const start = await measureMcp('start', sides, bench, config, { rounds: CLI_ROUNDS, log });
    const call = await measureMcp('call', sides, bench, config, { rounds: CLI_ROUNDS, log });
    return { start, call, ...(claudeSkipped ? { claudeSkipped } : {}) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const loadBefore = loadavg();
if (onlyCli) {
  process.stdout.write(`${renderMcpCli(await cliSideBySide())}\n`);
  process.exit(0);
}
const call = await calls();
const start = await startups();
const cli = await cliSideBySide();
const load = (l: number[]) => l.map((v) => v.toFixed(1)).join(', ');
const section = `<!-- mcp:begin (written by npx tsx bench/mcp.ts --write) -->
## MCP servers (issue 28): a tool call and start-up, server-everything over stdio

\`npx tsx bench/mcp.ts\`${quick ? ' --quick' : ''}: ${ROUNDS} interleaved calls per side, ${STARTS} start-ups, medians.

| what | ms | ratio |
|---|---|---|
| a call of \`echo\`: the MCP SDK's own client (the server's handling + stdio) | ${fmt(call.bare)} | 1 |
| the same call as agentloop's tool \`mcp__every__echo\` (server contained) | ${fmt(call.agentloop)} | ${fmt(call.agentloop / call.bare)} × the bare client (${call.agentloop >= call.bare ? '+' : '−'}${fmt(Math.abs(call.agentloop - call.bare))} ms) |
| the bash tool running \`echo hello\` (contained) | ${fmt(call.bash)} | MCP call ÷ bash: ${fmt(call.agentloop / call.bash)} |
| start-up: one bare client connects and lists the tools | ${fmt(start.bare!)} | 1 |
| startMcpServers with 1 server until ready (connected, tools listed) | ${fmt(start[1]!)} | ${fmt(start[1]! / start.bare!)} |
| … with 2 servers (they start side by side) | ${fmt(start[2]!)} | ${fmt(start[2]! / start.bare!)} |
| … with 4 servers | ${fmt(start[4]!)} | ${fmt(start[4]! / start.bare!)} |

Side by side with Claude Code (bench/mcpPeers.ts): agentloop's CLI (\`dist/cli/main.js\`) and Claude Code 2.1.197's native
binary (the one \`npm ci --prefix bench/peers\` installs), each \`-p PROMPT --output-format json --mcp-config FILE
--strict-mcp-config\` with the tools of \`every\` allowed, the config naming server-everything twice (\`every\`, \`other\`,
stdio), against the same local Messages API server that answers at once; ${CLI_ROUNDS} interleaved rounds after a warm-up,
medians. A run counts when it exits 0 with the answer, its first request lists both servers' tools, and (the call)
its tool_result is \`Echo: hello\`.

${renderMcpCli(cli)}

Load average ${load(loadBefore)} at the start, ${load(loadavg())} at the end, on ${availableParallelism()} cores shared with other work:
absolute times rise with the load; the side-by-side ratios (interleaved rounds) stay meaningful.
<!-- mcp:end -->`;
process.stdout.write(`${section}\n`);
if (args.includes('--write')) {
  const path = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));
  writeFileSync(path, replaceMarked(readFileSync(path, 'utf8'), 'mcp', section));
}
