/**
 * `--mcp-config` with the real `@modelcontextprotocol/server-filesystem` from npm (stdio), the CLI as a process against
 * the local Messages API server: the model writes a file through the server, reads it back beside a read outside the
 * server's allowed folder (refused by the server: an is_error result, and the run goes on), and the server's process
 * ends with the run.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerFromResults, lastToolResults, resultText } from '../support/agentServer.js';
import { runCli } from '../support/cli.js';
import { processesMarked, waitFor } from '../support/mcp.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

const require = createRequire(import.meta.url);
const FILESYSTEM = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist/index.js');

let project: CliProject;
cliProjectPerTest('mcp-fs', (p) => (project = p), { noViolations: true });

const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id, name, input });

describe('--mcp-config with server-filesystem', () => {
  it('writes and reads through the server; a path outside its folder is an is_error result and the run goes on', async () => {
    const root = join(project.dir, 'shared');
    mkdirSync(root);
    const marker = `fs-${process.pid}`;
    const server = { type: 'stdio', command: process.execPath, args: [FILESYSTEM, root], env: { AGENTLOOP_TEST_MARKER: marker } };
    const note = join(root, 'note.txt');
    project.server.enqueue(
      { content: [use('w', 'mcp__fs__write_file', { path: note, content: 'hello from the model' })], stop_reason: 'tool_use' },
      { content: [use('r', 'mcp__fs__read_text_file', { path: note }), use('x', 'mcp__fs__read_text_file', { path: join(project.dir, 'outside.txt') })], stop_reason: 'tool_use' },
      answerFromResults,
    );
    // A server's tools run in -p only when allowed, as with Claude Code's -p (docs/cli.md#permissions).
    const run = await runCli(['-p', '--mcp-config', JSON.stringify({ mcpServers: { fs: server } }), 'keep a note', '--allowedTools', 'mcp__fs'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(note, 'utf8')).toBe('hello from the model');
    const offered = ((project.server.requests[0]?.body as RequestBody).tools ?? []).map((t) => (t as { name: string }).name);
    expect(offered).toEqual(expect.arrayContaining(['mcp__fs__write_file', 'mcp__fs__read_text_file', 'mcp__fs__list_directory']));
    const [read, outside] = lastToolResults(project.server.requests[2]?.body as RequestBody);
    expect(read?.is_error).toBeFalsy();
    expect(resultText(read!)).toBe('hello from the model');
    expect(outside?.is_error).toBe(true);
    expect(resultText(outside!)).toMatch(/Access denied - path outside allowed directories/);
    expect(run.stdout).toMatch(/^Results: hello from the model/);
    await waitFor(() => processesMarked(marker).length === 0);
  }, 120_000);
});
