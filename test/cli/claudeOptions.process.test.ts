/**
 * Claude Code 2.1.197's long options that agentloop refused (28 of its 57), each run by the CLI as a process against
 * the local Messages API: the honoured ones do what Claude Code's do (--bare reads no CLAUDE.md, --name labels the
 * session, --debug and --debug-file write the run's events, --replay-user-messages writes each user message back,
 * --exclude-dynamic-system-prompt-sections moves the working directory out of the system prompt), and each of the
 * others runs with one line on stderr saying what became of it (src/cli/commandLine/claudeFlags.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TAKEN } from '../../src/cli/commandLine/claudeFlags.js';
import { runCli } from '../support/cli.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('claudeoptions', (p) => (project = p), { noViolations: true });

const cli = (args: string[], input?: string) => runCli(args, { cwd: project.dir, env: project.env, ...(input !== undefined ? { input } : {}) });
const answer = (text = 'ok') => project.server.enqueue({ content: [{ type: 'text', text }], stop_reason: 'end_turn' });
const sent = (i = 0) => project.server.requests[i]?.body as RequestBody;
const firstUserText = (i = 0) => JSON.stringify(sent(i).messages[0]?.content);

/** A value for each taken flag that takes one. */
const VALUES: Record<string, string[]> = {
  agent: ['--agent', 'reviewer'], betas: ['--betas', 'x-1'], effort: ['--effort', 'high'],
  file: ['--file', 'file_1:a.txt'], 'plugin-dir': ['--plugin-dir', 'p'], 'plugin-url': ['--plugin-url', 'https://example.com/p.zip'],
  'remote-control-session-name-prefix': ['--remote-control-session-name-prefix', 'x'],
};

describe("Claude Code's flags agentloop has no feature behind: taken, one line on stderr", () => {
  it.each(Object.keys(TAKEN))('--%s', async (flag) => {
    answer('Done.');
    const run = await cli([...(VALUES[flag] ?? [`--${flag}`]), '-p', 'hi', '--output-format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ result: 'Done.' });
    expect(run.stderr.trim().split('\n')).toEqual([`agentloop: --${flag}: ${TAKEN[flag]}`]);
  });

  it('takes an optional value inline only, a following word staying the prompt', async () => {
    answer('Done.');
    const run = await cli(['--worktree=feature', '-p', 'hi there']);
    expect(run.code, run.stderr).toBe(0);
    expect(firstUserText()).toContain('hi there');
  });
});

describe("Claude Code's flags agentloop honours", () => {
  it('--bare and --safe-mode read no CLAUDE.md; without them it is in the first user message', async () => {
    writeFileSync(join(project.dir, 'CLAUDE.md'), 'Always answer in French.\n');
    for (const flags of [[], ['--bare'], ['--safe-mode']]) {
      answer();
      expect((await cli([...flags, '-p', 'hi'])).code).toBe(0);
    }
    expect(firstUserText(0)).toContain('Always answer in French.');
    expect(firstUserText(1)).not.toContain('French');
    expect(firstUserText(2)).not.toContain('French');
  });

  it('--name labels the session', async () => {
    answer();
    expect((await cli(['--name', 'release prep', '-p', 'hi'])).code).toBe(0);
    const list = await cli(['sessions']);
    expect(list.stdout).toContain('[release prep] hi');
  });

  it('--debug writes the run events as JSON lines on stderr; --debug-file appends them to the file', async () => {
    answer();
    const run = await cli(['--debug=api', '-p', 'hi']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l).type)).toContain('reply');
    answer();
    const file = join(project.dir, 'debug.log');
    const quiet = await cli(['--debug-file', file, '-p', 'hi']);
    expect(quiet.stderr).toBe('');
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).type)).toContain('request');
  });

  it('--replay-user-messages writes each user message back, before its turn', async () => {
    answer('Hi.');
    const line = `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hello' } })}\n`;
    const run = await cli(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--replay-user-messages'], line);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const replay = lines.findIndex((l) => l.type === 'user' && l.isReplay === true);
    expect(lines[replay]?.message).toEqual({ role: 'user', content: 'hello' });
    expect(replay).toBeLessThan(lines.findIndex((l) => l.type === 'assistant'));
  });

  it('--exclude-dynamic-system-prompt-sections moves the working directory into the first user message', async () => {
    answer();
    answer();
    expect((await cli(['-p', 'hi'])).code).toBe(0);
    expect((await cli(['--exclude-dynamic-system-prompt-sections', '-p', 'hi'])).code).toBe(0);
    expect(JSON.stringify(sent(0).system)).toContain(project.dir);
    expect(JSON.stringify(sent(1).system)).not.toContain(project.dir);
    expect(firstUserText(1)).toContain(`Working directory: ${project.dir}`);
  });
});
