/**
 * The MCP SDK (and the ajv and zod it brings) loads only when an MCP server is to start: a `-p` run reads Claude Code's
 * scopes and `--mcp-config`, and with no server in any of them it loads none of that code (about 0.6 MB of the bundle,
 * 65 ms of CPU of an Agent SDK program's engine: bench/engine.ts). The CLI as a process against the local Messages API
 * server; which files of dist/ it loaded, by a module hook (test/support/moduleLog.ts); a file holds a package's code
 * when esbuild's `// node_modules/PACKAGE/` comment is in it.
 */
import { describe, expect, it } from 'vitest';
import { everything } from '../support/mcp.js';
import { distCodeLoaded } from '../support/moduleLog.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('mcp-loads', (p) => (project = p), { noViolations: true });

const PACKAGES = ['@modelcontextprotocol/sdk', 'ajv', 'zod'];

/** The packages of PACKAGES whose code is in the files of dist/ a `-p` run with `args` loaded. */
async function packagesLoaded(args: string[]): Promise<string[]> {
  const code = await distCodeLoaded({ cwd: project.dir, env: project.env, args: ['-p', 'hi', ...args] });
  return PACKAGES.filter((name) => code.includes(`// node_modules/${name}/`));
}

const answer = () => project.server.enqueue({ content: [{ type: 'text', text: 'hello' }], stop_reason: 'end_turn' });

describe('the MCP SDK loads only when a server is to start', () => {
  it('a -p run with no server in the scopes nor in --mcp-config loads none of it', async () => {
    answer();
    expect(await packagesLoaded([])).toEqual([]);
  });

  it('with --mcp-config {"mcpServers":{}} (servers read, none there), none either', async () => {
    answer();
    expect(await packagesLoaded(['--mcp-config', JSON.stringify({ mcpServers: {} })])).toEqual([]);
  });

  it('with a server configured, it does (what the checks above look for is there to find)', async () => {
    answer();
    const json = JSON.stringify({ mcpServers: { every: everything(`loads-${process.pid}`) } });
    expect(await packagesLoaded(['--mcp-config', json])).toContain('@modelcontextprotocol/sdk');
  });
});
