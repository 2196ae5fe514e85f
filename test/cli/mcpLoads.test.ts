/**
 * The MCP SDK (and the ajv and zod it brings) loads only when an MCP server is to start: a `-p` run reads Claude Code's
 * scopes and `--mcp-config`, and with no server in any of them it loads none of that code (about 0.6 MB of the bundle,
 * 65 ms of CPU of an Agent SDK program's engine: bench/engine.ts). The CLI as a process against the local Messages API
 * server; which files of dist/ it loaded, by a module hook (test/support/moduleLog.ts); a file holds a package's code
 * when esbuild's `// node_modules/PACKAGE/` comment is in it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import { everything } from '../support/mcp.js';
import { writeModuleLogHook } from '../support/moduleLog.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('mcp-loads', (p) => (project = p), { noViolations: true });

const PACKAGES = ['@modelcontextprotocol/sdk', 'ajv', 'zod'];

/** The packages of PACKAGES whose code is in the files of dist/ a `-p` run with `args` loaded. */
async function packagesLoaded(args: string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-mcp-modules-'));
  try {
    writeModuleLogHook(dir);
    const log = join(dir, 'modules.log');
    writeFileSync(log, '');
    // Not spawnSync: the Messages API server runs in this process.
    const child = spawn(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, CLI, '-p', 'hi', ...args], {
      cwd: project.dir,
      env: { ...project.env, MODULE_LOG: log },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    expect(await new Promise<number | null>((resolve) => child.on('close', resolve))).toBe(0);
    const files = [...new Set(readFileSync(log, 'utf8').split('\n'))].filter((url) => url.startsWith('file:') && url.includes('/dist/'));
    expect(files.length).toBeGreaterThan(1);
    const code = files.map((url) => readFileSync(new URL(url), 'utf8')).join('\n');
    return PACKAGES.filter((name) => code.includes(`// node_modules/${name}/`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
