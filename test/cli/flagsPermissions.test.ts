/**
 * --allowedTools / --disallowedTools with the CLI as a process against the local Messages API server: a denied
 * command never runs (its side-effect file is never made), the model gets an is_error result naming the rule, and
 * the json / stream-json result lists the call in permission_denials. The rules' matching itself is pinned in
 * test/tools/permissions.test.ts; here, that the CLI wires it into every run.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerFromResults, bashUse, lastToolResults, resultText } from '../support/agentServer.js';
import { runCli } from '../support/cli.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('permissions', (p) => (project = p), { files: { 'victim.txt': 'still here' } });

const cli = (args: string[], input = '') => runCli(args, { cwd: project.dir, env: project.env, input });
/** The model asks for `command`, then answers with the tool result it got. */
const asks = (command: string, id = 'toolu_1') =>
  project.server.enqueue({ content: [bashUse(id, command)], stop_reason: 'tool_use' }, answerFromResults);
const toolResult = (index = 1) => lastToolResults(project.server.requests[index]?.body as RequestBody)[0];
const file = (name: string) => existsSync(join(project.dir, name));

describe('a denied command never runs', () => {
  it('--disallowedTools: is_error result naming the rule, listed in permission_denials (json)', async () => {
    asks('rm victim.txt');
    const run = await cli(['-p', '--disallowedTools', 'Bash(rm:*)', '--output-format', 'json', 'clean up']);
    expect(run.code, run.stderr).toBe(0);
    expect(file('victim.txt')).toBe(true);
    expect(toolResult()).toMatchObject({ tool_use_id: 'toolu_1', is_error: true });
    expect(resultText(toolResult()!)).toBe('Not run: denied by rule Bash(rm:*)');
    expect(JSON.parse(run.stdout).permission_denials).toEqual([
      { tool_name: 'bash', tool_use_id: 'toolu_1', tool_input: { command: 'rm victim.txt' } },
    ]);
  });

  it('--allowedTools: a command with a part no rule allows is denied whole (echo ok && touch made.txt)', async () => {
    asks('echo ok && touch made.txt');
    const run = await cli(['-p', '--allowedTools', 'Bash(echo:*)', '--output-format', 'json', 'go']);
    expect(run.code, run.stderr).toBe(0);
    expect(file('made.txt')).toBe(false);
    expect(toolResult()?.is_error).toBe(true);
    expect(resultText(toolResult()!)).toMatch(/^Not run: not allowed: no allow rule matches "touch made.txt"/);
    expect(JSON.parse(run.stdout).permission_denials).toHaveLength(1);
  });

  it('deny beats allow: --allowedTools Bash --disallowedTools "Bash(rm:*)"', async () => {
    asks('rm -f victim.txt');
    const run = await cli(['-p', '--allowedTools', 'Bash', '--disallowedTools', 'Bash(rm:*)', 'go']);
    expect(run.code, run.stderr).toBe(0);
    expect(file('victim.txt')).toBe(true);
    expect(run.stdout).toBe('Results: Not run: denied by rule Bash(rm:*)\n');
  });

  it('stream-json: the result line lists the denial too', async () => {
    asks('rm victim.txt');
    const run = await cli(['-p', '--output-format', 'stream-json', '--verbose', '--disallowed-tools', 'Bash(rm:*)', 'go']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { type: string; permission_denials: unknown[] };
    expect(result.type).toBe('result');
    expect(result.permission_denials).toEqual([{ tool_name: 'bash', tool_use_id: 'toolu_1', tool_input: { command: 'rm victim.txt' } }]);
  });

  it('the REPL is gated by the same rules', async () => {
    asks('rm victim.txt');
    const run = await cli(['--disallowedTools', 'Bash(rm:*)'], 'clean up\nq\n');
    expect(run.code, run.stderr).toBe(0);
    expect(file('victim.txt')).toBe(true);
    expect(resultText(toolResult()!)).toBe('Not run: denied by rule Bash(rm:*)');
  });
});

describe('an allowed command runs', () => {
  it('matching every part: runs, no denials', async () => {
    asks('touch made.txt && echo done');
    const run = await cli(['-p', '--allowedTools', 'Bash(touch:*) Bash(echo:*)', '--output-format', 'json', 'go']);
    expect(run.code, run.stderr).toBe(0);
    expect(file('made.txt')).toBe(true);
    expect(toolResult()?.is_error ?? false).toBe(false);
    expect(JSON.parse(run.stdout).permission_denials).toEqual([]);
  });

  it('without rules every command runs, as before', async () => {
    asks('rm victim.txt');
    const run = await cli(['-p', '--output-format', 'json', 'go']);
    expect(run.code, run.stderr).toBe(0);
    expect(file('victim.txt')).toBe(false);
    expect(JSON.parse(run.stdout).permission_denials).toEqual([]);
  });
});

it('a rule that does not parse: one line and a pointer to --help, exit 2, no request', async () => {
  const run = await cli(['-p', '--allowedTools', 'Bash()', 'go']);
  expect(run.code).toBe(2);
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^agentloop: --allowedTools: invalid permission rule "Bash\(\)": empty parentheses/);
  expect(lines[1]).toBe('see agentloop --help');
  expect(project.server.requests).toHaveLength(0);
});
