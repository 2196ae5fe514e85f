/**
 * `agentloop mcp list` and `mcp get NAME` (as root and as nobody, the files in that user's HOME and project): every
 * server of Claude Code's scopes with its scope, transport and health. The servers are the real server-everything from
 * npm (connected, its tools listed, then stopped: no process of it left), one that cannot start (failed, why said), an
 * http one nobody listens for, a `.mcp.json` one not approved (pending, and never started: its command would leave a
 * file) and one disabled (not listed). Exit codes: 0 for a list whatever the health, 1 for `get` of an unknown name, 2
 * for a bad command line.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv } from '../../support/cli.js';
import { EVERYTHING, everything, processesMarked, waitFor } from '../../support/mcp.js';
import { cliProjectFor } from '../../support/project.js';
import { runCliAs, testUsers } from '../../support/users.js';
import { closedPort } from '../../support/closedPort.js';

describe.each(testUsers())('mcp list and get, the CLI as $name', (user) => {
  const { skip } = user;
  const project = cliProjectFor('cli-mcp-list', user, { server: false });

  /** HOME with ~/.claude.json (user and local servers), a repository with .mcp.json and approvals, all the user's. */
  async function layout(marker: string) {
    const base = project.next();
    const [home, repo] = [join(base, 'home'), join(base, 'repo')];
    const cwd = join(repo, 'work');
    const ran = join(base, 'pending-ran');
    const E = everything(marker);
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const files: Record<string, unknown> = {
      [join(home, '.claude.json')]: {
        mcpServers: { u: E, bad: { command: '/nonexistent/mcp-list-server' } },
        projects: { [repo]: { mcpServers: { web: { type: 'http', url, headers: { Authorization: 'Bearer secret-list-token' } } } } },
      },
      [join(repo, '.mcp.json')]: {
        mcpServers: { p1: E, p2: { command: 'sh', args: ['-c', `touch ${ran}; exec ${process.execPath} ${EVERYTHING} stdio`] }, off: E },
      },
      [join(cwd, '.claude', 'settings.local.json')]: { enabledMcpjsonServers: ['p1', 'off'], disabledMcpjsonServers: ['off'] },
    };
    for (const folder of [home, join(repo, '.git'), join(cwd, '.claude')]) mkdirSync(folder, { recursive: true });
    for (const [path, json] of Object.entries(files)) writeFileSync(path, JSON.stringify(json));
    project.own(base);
    const env = cliEnv({ HOME: home, AGENTLOOP_HOME: join(base, 'agentloop-home') });
    delete env.CLAUDE_CONFIG_DIR;
    return { cwd, env, ran, url, home };
  }

  it.skipIf(skip !== undefined)('lists each server of every scope with its scope, transport and health; a pending one is not started', async () => {
    const marker = `list-${process.pid}-${project.runs}`;
    const { cwd, env, ran, url } = await layout(marker);
    const run = await runCliAs(user, ['mcp', 'list'], { cwd, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const command = `${process.execPath} ${EVERYTHING} stdio`;
    expect(run.stdout.split('\n')).toEqual([
      `u: ${command} - ✓ Connected, 13 tools [user]`,
      expect.stringMatching(/^bad: \/nonexistent\/mcp-list-server - ✗ Failed to connect: .*nonexistent\/mcp-list-server.* \[user\]$/),
      `p1: ${command} - ✓ Connected, 13 tools [project]`,
      expect.stringMatching(/^p2: sh -c touch .* - ⏸ Pending approval \(name it in "enabledMcpjsonServers" in \.claude\/settings\.local\.json\) \[project\]$/),
      expect.stringMatching(new RegExp(`^web: ${url.replace(/\./g, '\\.')} \\(HTTP\\) - ✗ Failed to connect: .+ \\[local\\]$`)),
      '',
    ]);
    expect(existsSync(ran)).toBe(false);
    await waitFor(() => processesMarked(marker).length === 0);

    const json = await runCliAs(user, ['mcp', 'list', '--output-format', 'json'], { cwd, env });
    expect(json.code, json.stderr).toBe(0);
    const entries = JSON.parse(json.stdout) as { name: string; scope: string; type: string; status: string; tools?: string[] }[];
    expect(entries.map(({ name, scope, type, status }) => [name, scope, type, status])).toEqual([
      ['u', 'user', 'stdio', 'connected'],
      ['bad', 'user', 'stdio', 'failed'],
      ['p1', 'project', 'stdio', 'connected'],
      ['p2', 'project', 'stdio', 'pending'],
      ['web', 'local', 'http', 'failed'],
    ]);
    expect(entries[0]?.tools).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
    expect(json.stdout).not.toContain('secret-list-token');
    expect(existsSync(ran)).toBe(false);
    await waitFor(() => processesMarked(marker).length === 0);
  }, 120_000);

  it.skipIf(skip !== undefined)("gets one server's details without the values of its env or headers; an unknown name is exit 1, a bad line exit 2", async () => {
    const marker = `get-${process.pid}-${project.runs}`;
    const { cwd, env } = await layout(marker);
    const got = await runCliAs(user, ['mcp', 'get', 'u'], { cwd, env });
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout.split('\n').slice(0, 7)).toEqual([
      'u:',
      '  Scope: User config (available in all your projects)',
      '  Status: ✓ Connected, 13 tools',
      '  Type: stdio',
      `  Command: ${process.execPath}`,
      `  Args: ${EVERYTHING} stdio`,
      '  Environment: AGENTLOOP_TEST_MARKER (values not shown)',
    ]);
    expect(got.stdout).toMatch(/^ {2}Tools: echo, .*get-sum/m);
    expect(got.stdout).not.toContain(marker);
    const web = await runCliAs(user, ['mcp', 'get', 'web'], { cwd, env });
    expect(web.code, web.stderr).toBe(0);
    expect(web.stdout).toMatch(/^ {2}Scope: Local config \(private to you in this project\)\n {2}Status: ✗ Failed to connect: .+\n {2}Type: http\n {2}URL: http:\/\/127\.0\.0\.1:\d+\/mcp\n {2}Headers: Authorization \(values not shown\)\n$/m);
    expect(web.stdout).not.toContain('secret-list-token');

    const unknown = await runCliAs(user, ['mcp', 'get', 'off'], { cwd, env });
    expect([unknown.code, unknown.stdout, unknown.stderr]).toEqual([1, '', 'agentloop: no MCP server named "off" (configured: u, bad, p1, p2, web)\n']);
    const bad = await runCliAs(user, ['mcp', 'frob'], { cwd, env });
    expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([2, 'agentloop: unknown mcp command "frob" (list, get NAME)']);
    await waitFor(() => processesMarked(marker).length === 0);
  }, 120_000);

  it.skipIf(skip !== undefined)('says so when no server is configured (exit 0)', async () => {
    const { cwd, env, home } = await layout(`none-${process.pid}`);
    rmSync(join(home, '.claude.json'));
    const run = await runCliAs(user, ['mcp', 'list', '--setting-sources', 'user,local'], { cwd, env });
    expect([run.code, run.stdout, run.stderr]).toEqual([0, 'No MCP servers configured: add them to ~/.claude.json or .mcp.json (docs/mcp.md), or give a run --mcp-config.\n', '']);
  }, 60_000);
});
