/**
 * Claude Code's flags that agentloop took late, with the CLI as a process against the local Messages API server, each
 * held to what Claude Code 2.1.197 does with the same command line (run against the same kind of server):
 * --tools (the Agent SDK's `tools`), which decides the built-in tools the request offers; --system-prompt-file and
 * --append-system-prompt-file, whose file's text is the request's system prompt; what a text run --max-turns stopped
 * prints.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerFromResults, bashUse } from '../../support/agentServer.js';
import { runCli, SELF, type CliRun } from '../../support/cli.js';
import { everything } from '../../support/mcp.js';
import type { RequestBody } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';

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
    [['--tools=default'], ['bash', 'Read', 'Write', 'Edit']], // tools: { type: 'preset', preset: 'claude_code' }
    [['--tools', 'Default'], ['bash', 'Read', 'Write', 'Edit']],
    [['--tools', 'Bash,Grep,Read'], ['bash', 'Read', 'Grep']],
    [[], ['bash', 'Read', 'Write', 'Edit']],
    [['--allowedTools', 'Grep'], ['bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep']],
  ])('%j offers %j', async (flags, tools) => {
    answer();
    const run = await cli(['-p', ...flags, '--', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(offered()).toEqual(tools);
  });

  it('a name agentloop has no tool for is left out (Claude Code leaves out one it has not), said once on stderr; the run goes on', async () => {
    answer('fine');
    const run = await cli(['-p', '--tools', 'WebFetch,Bash', 'Nope', '--', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('fine\n');
    expect(offered()).toEqual(['bash']);
    expect(run.stderr).toMatch(/^agentloop: --tools: WebFetch, Nope left out: agentloop's built-in tools are Bash(, \w+)* \(Claude Code too leaves out a name it has no tool for\)\n$/);
  });

  it('a call of a tool --tools left out is not run: the model is told the tool is unknown', async () => {
    project.server.enqueue({ content: [bashUse('t1', 'touch made.txt')], stop_reason: 'tool_use' }, answerFromResults);
    const run = await cli(['-p', '--tools=', '--allowedTools', 'Bash', '--', 'make a file']);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(project.dir, 'made.txt'))).toBe(false);
    expect(offered(1)).toEqual([]);
    expect(run.stdout).toBe('Results: <tool_use_error>Error: No such tool available: bash. bash exists but is not enabled in this context. Use one of the available tools instead.</tool_use_error>\n');
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

describe('--system-prompt-file, --append-system-prompt-file: the file\'s text, as it is', () => {
  /** A request's system prompt as one text (agentloop sends it as text blocks, with a cache breakpoint). */
  const textOf = (system: RequestBody['system']) => (typeof system === 'string' || system === undefined ? system : system.map((block) => block.text).join(''));
  const system = () => textOf((project.server.requests[0]?.body as RequestBody).system);
  const file = (name: string, text: string) => {
    writeFileSync(join(project.dir, name), text);
    return join(project.dir, name);
  };
  /** One line and the pointer to --help, nothing on stdout, no model call. */
  const refused = (run: CliRun, code: number, line: string) => {
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code, stdout: '', stderr: `agentloop: ${line}\nsee ${SELF} --help\n` });
    expect(project.server.requests).toEqual([]);
  };

  it('--system-prompt-file: the system prompt is the file\'s text, not trimmed (a path relative to the current directory)', async () => {
    answer();
    file('pirate.txt', 'You are a pirate.\n\n');
    const run = await cli(['-p', '--system-prompt-file', 'pirate.txt', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(system()).toBe('You are a pirate.\n\n');
  });

  it('--append-system-prompt-file: the file\'s text after the default prompt', async () => {
    answer();
    const run = await cli(['-p', '--append-system-prompt-file', file('french.txt', 'Answer in French.\n'), 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(system()).toMatch(/^You are a coding agent working in /);
    expect(system()).toMatch(/\n\nAnswer in French\.\n$/);
  });

  it('--system-prompt with --append-system-prompt-file, and both files: the prompt, then the addition', async () => {
    answer();
    answer();
    expect((await cli(['-p', '--system-prompt', 'Base.', '--append-system-prompt-file', file('more.txt', 'More.'), 'hi'])).code).toBe(0);
    expect((await cli(['-p', '--system-prompt-file', file('base.txt', 'Base.'), '--append-system-prompt-file', file('more.txt', 'More.'), 'hi'])).code).toBe(0);
    expect(project.server.requests.map((r) => textOf((r.body as RequestBody).system))).toEqual(['Base.\n\nMore.', 'Base.\n\nMore.']);
  });

  it('an empty file: no system prompt in the request (as Claude Code sends none)', async () => {
    answer();
    const run = await cli(['-p', '--system-prompt-file', file('empty.txt', ''), 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(system()).toBeUndefined();
  });

  it.each([['system-prompt-file'], ['append-system-prompt-file']])('--%s with no such file: one line, exit 1 (as Claude Code), no model call', async (flag) => {
    const run = await cli(['-p', `--${flag}`, 'missing.txt', 'hi']);
    refused(run, 1, `--${flag} ${join(project.dir, 'missing.txt')}: no such file`);
  });

  it('a directory in place of the file: one line, exit 1, no model call', async () => {
    mkdirSync(join(project.dir, 'prompts'));
    refused(await cli(['-p', '--system-prompt-file', 'prompts', 'hi']), 1, `--system-prompt-file ${join(project.dir, 'prompts')}: cannot read it (EISDIR)`);
  });

  it.each([['system-prompt'], ['append-system-prompt']])('--%s and its -file together are refused (as Claude Code refuses them), exit 2', async (flag) => {
    refused(await cli(['-p', `--${flag}`, 'Inline.', `--${flag}-file`, file('f.txt', 'File.'), 'hi']), 2, `--${flag} and --${flag}-file exclude each other: use one (as Claude Code)`);
  });
});

describe('--max-turns in text mode: what Claude Code prints', () => {
  const toolTurn = (id: string) => ({ content: [{ type: 'text' as const, text: 'Let me look.' }, bashUse(id, 'ls')], stop_reason: 'tool_use' as const });

  // Claude Code 2.1.197, -p --max-turns N with replies that keep asking for a tool: stdout "Error: Reached max turns (N)"
  // with no newline, stderr empty, exit 1 (its json: subtype error_max_turns, errors ["Reached maximum number of turns (N)"]).
  it.each([[1], [2]])('--max-turns %i: stdout "Error: Reached max turns (N)" with no newline, nothing on stderr, exit 1', async (turns) => {
    project.server.enqueue(toolTurn('t1'), toolTurn('t2'), toolTurn('t3'));
    const run = await cli(['-p', '--max-turns', String(turns), 'list the files']);
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 1, stdout: `Error: Reached max turns (${turns})`, stderr: '' });
    expect(project.server.requests).toHaveLength(turns);
  });
});
