/**
 * --allowedTools / --disallowedTools and --permission-mode with the CLI as a process against the local Messages API server: a denied
 * command never runs (its side-effect file is never made), the model gets an is_error result naming the rule, and
 * the json / stream-json result lists the call in permission_denials. The rules' matching itself is pinned in
 * test/permissions/gateRules.test.ts; here, that the CLI wires it into every run.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerFromResults, bashUse, lastToolResults, resultText } from '../support/agentServer.js';
import { RUN_EVERYTHING, runCli, SELF } from '../support/cli.js';
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
      { tool_name: 'Bash', tool_use_id: 'toolu_1', tool_input: { command: 'rm victim.txt' } },
    ]);
  });

  it('--allowedTools: a command with a part no rule allows is denied whole (echo ok && touch made.txt)', async () => {
    asks('echo ok && touch made.txt');
    const run = await cli(['-p', '--allowedTools', 'Bash(echo:*)', '--output-format', 'json', 'go']);
    expect(run.code, run.stderr).toBe(0);
    expect(file('made.txt')).toBe(false);
    expect(toolResult()?.is_error).toBe(true);
    expect(resultText(toolResult()!)).toBe('Not run: not allowed: no allow rule matches "echo ok && touch made.txt" (permission mode default)');
    expect(JSON.parse(run.stdout).permission_denials).toHaveLength(1);
  });

  it('deny beats allow: --allowedTools Bash --disallowedTools "Bash(rm:*)"', async () => {
    asks('rm -f victim.txt');
    const run = await cli(['-p', '--allowedTools', 'Bash', '--disallowedTools', 'Bash(rm:*)', 'go']);
    expect(run.code, run.stderr).toBe(0);
    expect(file('victim.txt')).toBe(true);
    expect(run.stdout).toBe('Results: Not run: denied by rule Bash(rm:*)\n');
  });

  it('a rule flag takes the words after it, as Claude Code\'s; with the prompt piped, the last word is a rule too', async () => {
    asks('touch made.txt');
    const run = await cli(['-p', '--disallowedTools', 'Bash(rm:*)', 'Bash(touch:*)'], 'clean up');
    expect(run.code, run.stderr).toBe(0);
    expect(file('made.txt')).toBe(false);
    expect(resultText(toolResult()!)).toBe('Not run: denied by rule Bash(touch:*)');
    expect((project.server.requests[0]?.body as RequestBody).messages[0]?.content).toMatchObject([{ type: 'text', text: 'clean up' }]);
  });

  it('stream-json: the result line lists the denial too', async () => {
    asks('rm victim.txt');
    const run = await cli(['-p', '--output-format', 'stream-json', '--verbose', '--disallowed-tools', 'Bash(rm:*)', 'go']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { type: string; permission_denials: unknown[] };
    expect(result.type).toBe('result');
    expect(result.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: 'toolu_1', tool_input: { command: 'rm victim.txt' } }]);
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

  it("without rules or a mode, -p is Claude Code's: rm is denied (test/cli/permissionDefaults.process.test.ts); with --dangerously-skip-permissions it runs", async () => {
    asks('rm victim.txt');
    const judged = await cli(['-p', '--output-format', 'json', 'go']);
    expect(judged.code, judged.stderr).toBe(0);
    expect(file('victim.txt')).toBe(true);
    expect(JSON.parse(judged.stdout).permission_denials).toHaveLength(1);
    asks('rm victim.txt');
    const run = await cli(['-p', '--output-format', 'json', 'go', RUN_EVERYTHING]);
    expect(run.code, run.stderr).toBe(0);
    expect(file('victim.txt')).toBe(false);
    expect(JSON.parse(run.stdout).permission_denials).toEqual([]);
  }, 90_000); // two runs of the CLI: a busy machine's time
});

describe("stream-json input without a rule or a mode: Claude Code's defaults (its -p denies what it would ask about, as of 2.1.197)", () => {
  const STREAM = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];
  const userLine = (text: string) => `${JSON.stringify({ type: 'user', message: { role: 'user', content: text } })}\n`;

  it('a read-only command runs; rm, touch and npm install are denied, never run, listed in permission_denials; the init line says default', async () => {
    project.server.enqueue(
      { content: ['cat victim.txt', 'rm victim.txt', 'touch made.txt', 'npm install left-pad'].map((c, i) => bashUse(`toolu_${i + 1}`, c)), stop_reason: 'tool_use' },
      answerFromResults,
    );
    const run = await cli(STREAM, userLine('go'));
    expect(run.code, run.stderr).toBe(0);
    expect(file('victim.txt')).toBe(true);
    expect(file('made.txt')).toBe(false);
    const [cat, ...denied] = lastToolResults(project.server.requests[1]?.body as RequestBody);
    expect(resultText(cat!)).toBe('still here');
    expect(denied.map((result) => [result.is_error, resultText(result)])).toEqual(
      ['rm victim.txt', 'touch made.txt', 'npm install left-pad'].map((command) => [
        true,
        `Not run: not allowed in permission mode default: without an allow rule only read-only commands run, and "${command}" is not one`,
      ]),
    );
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { subtype?: string; permissionMode?: string; permission_denials?: { tool_use_id: string }[] });
    expect(lines[0]).toMatchObject({ subtype: 'init', permissionMode: 'default' });
    expect(lines.at(-1)?.permission_denials?.map((denial) => denial.tool_use_id)).toEqual(['toolu_2', 'toolu_3', 'toolu_4']);
  });
});

describe('--permission-mode, --dangerously-skip-permissions: what runs without a rule', () => {
  /** One reply asking for each command (ids toolu_1, toolu_2, ...), then the answer from the results. */
  const asksAll = (...commands: string[]) =>
    project.server.enqueue({ content: commands.map((c, i) => bashUse(`toolu_${i + 1}`, c)), stop_reason: 'tool_use' }, answerFromResults);
  const results = () => lastToolResults(project.server.requests[1]?.body as RequestBody);
  const initLine = (stdout: string) => JSON.parse(stdout.split('\n')[0] as string) as { subtype: string; permissionMode: string };

  it('plan: a read-only command runs, one that writes does not, even with an allow rule', async () => {
    asksAll('ls', 'touch made.txt');
    const run = await cli(['-p', '--permission-mode', 'plan', '--allowedTools', 'Bash', '--output-format', 'stream-json', '--verbose', 'go']);
    expect(run.code, run.stderr).toBe(0);
    expect(file('made.txt')).toBe(false);
    expect(initLine(run.stdout)).toMatchObject({ subtype: 'init', permissionMode: 'plan' });
    const [ls, touch] = results();
    expect(ls?.is_error ?? false).toBe(false);
    expect(resultText(ls!)).toMatch(/victim\.txt/);
    expect(resultText(touch!)).toBe('Not run: not allowed in plan mode: only read-only commands run, and "touch made.txt" is not one');
    const last = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { permission_denials: unknown[] };
    expect(last.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: 'toolu_2', tool_input: { command: 'touch made.txt' } }]);
  });

  it('default (Claude Code\'s manual): read-only commands run; what would be asked is denied', async () => {
    asksAll('cat victim.txt', 'rm victim.txt');
    const run = await cli(['-p', '--permission-mode', 'manual', '--output-format', 'json', 'go']);
    expect(run.code, run.stderr).toBe(0);
    expect(file('victim.txt')).toBe(true);
    const [cat, rm] = results();
    expect(resultText(cat!)).toBe('still here');
    expect(rm?.is_error).toBe(true);
    expect(JSON.parse(run.stdout).permission_denials).toHaveLength(1);
  });

  it('acceptEdits: file commands inside the working directory run', async () => {
    asksAll('mkdir -p out && touch out/made.txt', 'cp victim.txt /tmp/agentloop-escaped.txt');
    const run = await cli(['-p', '--permission-mode', 'acceptEdits', '--output-format', 'json', 'go']);
    expect(run.code, run.stderr).toBe(0);
    expect(file('out/made.txt')).toBe(true);
    expect(existsSync('/tmp/agentloop-escaped.txt')).toBe(false);
    expect(JSON.parse(run.stdout).permission_denials).toEqual([
      { tool_name: 'Bash', tool_use_id: 'toolu_2', tool_input: { command: 'cp victim.txt /tmp/agentloop-escaped.txt' } },
    ]);
  });

  it('--dangerously-skip-permissions: every call runs, allow rules or not; deny rules still deny', async () => {
    asksAll('touch made.txt', 'rm victim.txt');
    const run = await cli([
      '-p', '--dangerously-skip-permissions', '--allowedTools', 'Bash(echo:*)', '--disallowedTools', 'Bash(rm:*)',
      '--output-format', 'stream-json', '--verbose', 'go',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(initLine(run.stdout).permissionMode).toBe('bypassPermissions');
    expect(file('made.txt')).toBe(true);
    expect(file('victim.txt')).toBe(true);
    expect(resultText(results()[1]!)).toBe('Not run: denied by rule Bash(rm:*)');
  });

  it.each([
    [['--permission-mode', 'yolo'], /^agentloop: --permission-mode must be one of default, acceptEdits, plan, dontAsk, bypassPermissions \(or manual\), not "yolo"$/],
    [['--permission-mode', 'auto'], /^agentloop: --permission-mode auto needs Claude Code's safety classifier/],
    [['--permission-mode', 'plan', '--dangerously-skip-permissions'], /^agentloop: --dangerously-skip-permissions is --permission-mode bypassPermissions: it cannot go with --permission-mode plan$/],
  ])('%j: one line and a pointer to --help, exit 2, no request', async (flags, message) => {
    const run = await cli(['-p', ...flags, 'go']);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(message), `see ${SELF} --help`]);
    expect(project.server.requests).toHaveLength(0);
  });
});

it('a rule that does not parse: one line and a pointer to --help, exit 2, no request', async () => {
  const run = await cli(['-p', '--allowedTools', 'Bash()', 'go']);
  expect(run.code).toBe(2);
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^agentloop: --allowedTools: invalid permission rule "Bash\(\)": empty parentheses/);
  expect(lines[1]).toBe(`see ${SELF} --help`);
  expect(project.server.requests).toHaveLength(0);
});
