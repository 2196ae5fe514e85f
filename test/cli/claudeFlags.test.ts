/**
 * Claude Code's flags that agentloop took late, with the CLI as a process against the local Messages API server, each
 * held to what Claude Code 2.1.197 does with the same command line (run against the same kind of server):
 * --tools (the Agent SDK's `tools`), which decides the built-in tools the request offers.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerFromResults, bashUse } from '../support/agentServer.js';
import { runCli } from '../support/cli.js';
import { everything } from '../support/mcp.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('claudeflags', (p) => (project = p), { noViolations: true });

const cli = (args: string[]) => runCli(args, { cwd: project.dir, env: project.env });
const answer = (text = 'ok') => project.server.enqueue({ content: [{ type: 'text', text }], stop_reason: 'end_turn' });
const offered = (index = 0) => ((project.server.requests[index]?.body as RequestBody).tools ?? []).map((tool) => (tool as { name: string }).name);

describe('--tools: the built-in tools offered, as Claude Code chooses them', () => {
  it.each([
    [['--tools='], []], // what the Agent SDK sends for tools: []
    [['--tools', ''], []],
    [['--tools=,'], []],
    [['--tools=Bash'], ['bash']], // tools: ['Bash']
    [['--tools', 'Bash'], ['bash']],
    [['--tools=default'], ['bash']], // tools: { type: 'preset', preset: 'claude_code' }
    [['--tools', 'Default'], ['bash']],
    [[], ['bash']],
  ])('%j offers %j', async (flags, tools) => {
    answer();
    const run = await cli(['-p', ...flags, '--', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(offered()).toEqual(tools);
  });

  it('a name agentloop has no tool for is left out (Claude Code leaves out one it has not), said once on stderr; the run goes on', async () => {
    answer('fine');
    const run = await cli(['-p', '--tools', 'Read,Bash', 'Edit', 'Nope', '--', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('fine\n');
    expect(offered()).toEqual(['bash']);
    expect(run.stderr).toBe("agentloop: --tools: Read, Edit, Nope left out: agentloop's one built-in tool is Bash (Claude Code too leaves out a name it has no tool for)\n");
  });

  it('a call of a tool --tools left out is not run: the model is told the tool is unknown', async () => {
    project.server.enqueue({ content: [bashUse('t1', 'touch made.txt')], stop_reason: 'tool_use' }, answerFromResults);
    const run = await cli(['-p', '--tools=', '--allowedTools', 'Bash', '--', 'make a file']);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(project.dir, 'made.txt'))).toBe(false);
    expect(offered(1)).toEqual([]);
    expect(run.stdout).toBe('Results: Unknown tool "bash". Available tools: none.\n');
  });

  it("keeps the MCP servers' tools (as Claude Code does), in the request and in the init line", async () => {
    answer();
    const config = JSON.stringify({ mcpServers: { every: everything('claudeflags-tools') } });
    const run = await cli(['-p', '--tools=', '--mcp-config', config, '--output-format', 'stream-json', '--verbose', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(offered()).toContain('mcp__every__echo');
    expect(offered().some((name) => !name.startsWith('mcp__every__'))).toBe(false);
    const init = JSON.parse(run.stdout.split('\n')[0]!) as { subtype: string; tools: string[] };
    expect(init.subtype).toBe('init');
    expect(init.tools).toEqual(offered());
  });
});
