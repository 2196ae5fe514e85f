/**
 * The CLI (as root and as nobody, its files in that user's HOME and project) starts the MCP servers of Claude Code's
 * scopes: `mcpServers` of ~/.claude.json (user), `projects[<repository>].mcpServers` there (local), `.mcp.json` (project,
 * less those settings disable); local over project over user, `--mcp-config` over all; `--strict-mcp-config` only
 * `--mcp-config`'s. Each server that should lose a name is one that cannot start: the init line's `connected` says
 * which one won. The servers are the real server-everything from npm.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerFromResults, lastToolResults, resultText } from '../support/agentServer.js';
import { cliEnv } from '../support/cli.js';
import { everything, processesMarked, waitFor } from '../support/mcp.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectFor } from '../support/project.js';
import { runCliAs, testUsers } from '../support/users.js';

const broken = (where: string) => ({ command: `/nonexistent/${where}` });

describe.each(testUsers())('MCP scopes, the CLI as $name', (user) => {
  const { skip } = user;
  const project = cliProjectFor('cli-mcp-scopes', user);

  /** HOME with ~/.claude.json, a repository with .mcp.json, and a folder in it with settings, all the user's. */
  function layout(marker: string) {
    const base = project.next();
    const home = join(base, 'home');
    const repo = join(base, 'repo');
    const cwd = join(repo, 'work');
    const E = everything(marker);
    const files: Record<string, unknown> = {
      [join(home, '.claude.json')]: { mcpServers: { u: E, x: broken('user-x'), y: broken('user-y') }, projects: { [repo]: { mcpServers: { x: E } } } },
      [join(repo, '.mcp.json')]: { mcpServers: { x: broken('project-x'), y: E, z: broken('project-z'), off: E } },
      [join(cwd, '.claude', 'settings.local.json')]: { disabledMcpjsonServers: ['off'] },
    };
    for (const folder of [home, join(repo, '.git'), join(cwd, '.claude'), join(cwd, 'agentloop-home')]) mkdirSync(folder, { recursive: true });
    for (const [path, json] of Object.entries(files)) writeFileSync(path, JSON.stringify(json));
    project.own(base);
    const env = cliEnv({ HOME: home, ANTHROPIC_API_KEY: 'sk-ant-test-scopes', ANTHROPIC_BASE_URL: project.server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: join(cwd, 'agentloop-home') });
    delete env.CLAUDE_CONFIG_DIR;
    return { cwd, env, dynamic: JSON.stringify({ mcpServers: { z: E } }) };
  }

  const initOf = (stdout: string) => JSON.parse(stdout.split('\n')[0] as string) as { mcp_servers: { name: string; status: string }[]; tools: string[] };

  it.skipIf(skip !== undefined)('starts the servers of ~/.claude.json and .mcp.json: local over project over user, --mcp-config over all, disabled ones left out', async () => {
    const marker = `scopes-${process.pid}-${project.runs}`;
    const { cwd, env, dynamic } = layout(marker);
    const { server } = project;
    const before = server.requests.length;
    server.enqueue({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'mcp__x__echo', input: { message: 'local wins' } }], stop_reason: 'tool_use' }, answerFromResults);
    // A server's tools run in -p only when allowed, as with Claude Code's -p (docs/cli.md#permissions).
    const run = await runCliAs(user, ['-p', '--mcp-config', dynamic, '--output-format', 'stream-json', '--verbose', 'echo', '--allowedTools', 'mcp__x'], { cwd, env });
    expect(run.code, run.stderr).toBe(0);
    const init = initOf(run.stdout);
    expect([...init.mcp_servers].sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      ['u', 'x', 'y', 'z'].map((name) => ({ name, status: 'connected' })),
    );
    expect(init.tools).toEqual(expect.arrayContaining(['mcp__u__echo', 'mcp__x__echo', 'mcp__y__echo', 'mcp__z__echo']));
    expect(init.tools.some((tool) => tool.startsWith('mcp__off__'))).toBe(false);
    expect(run.stderr).not.toMatch(/MCP server/);
    const [result] = lastToolResults(server.requests[before + 1]?.body as RequestBody);
    expect(resultText(result!)).toBe('Echo: local wins');
    await waitFor(() => processesMarked(marker).length === 0);
  }, 120_000);

  it.skipIf(skip !== undefined)("--strict-mcp-config starts only --mcp-config's servers", async () => {
    const marker = `strict-${process.pid}-${project.runs}`;
    const { cwd, env, dynamic } = layout(marker);
    project.server.enqueue({ content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' });
    const run = await runCliAs(user, ['-p', '--strict-mcp-config', '--mcp-config', dynamic, '--output-format', 'stream-json', '--verbose', 'hi'], { cwd, env });
    expect(run.code, run.stderr).toBe(0);
    expect(initOf(run.stdout).mcp_servers).toEqual([{ name: 'z', status: 'connected' }]);
    await waitFor(() => processesMarked(marker).length === 0);
  }, 120_000);
});
