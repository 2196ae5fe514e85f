/**
 * What runs with no permission flag, entry point by entry point (docs/cli.md, "Which entry point runs what"), and the
 * bypass flags as root. The CLI as a process against the local Messages API server: `-p` judges as Claude Code's `-p`
 * (a read-only command runs; one Claude Code would ask about is denied, never runs, and is reported), `--demo` runs
 * its read-only `ls -A` as root with no flag and as nobody (the README's first command), the REPL on piped input
 * denies what it would ask about as -p does, the library runs every call. The REPL's question in a terminal is in
 * test/cli/repl/replAsk.process.test.ts, stream-json input's default in flagsPermissions.test.ts, a durable worker's in
 * test/durable/sameAsCli.test.ts.
 */
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { defaultTools } from '../../src/run/defaultTools.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { answerFromResults, bashUse, lastToolResults, resultText } from '../support/agentServer.js';
import { RUN_EVERYTHING, cliEnv, runCli } from '../support/cli.js';
import type { RequestBody } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';
import { runCliAs, testUsers } from '../support/users.js';

let project: CliProject;
cliProjectPerTest('permission-defaults', (p) => (project = p), { files: { 'victim.txt': 'still here' } });

const file = (name: string) => existsSync(join(project.dir, name));
/** One reply asking for each command (ids toolu_1, toolu_2, ...), then the answer from the results. */
const asksAll = (...commands: string[]) =>
  project.server.enqueue({ content: commands.map((c, i) => bashUse(`toolu_${i + 1}`, c)), stop_reason: 'tool_use' }, answerFromResults);
const results = () => lastToolResults(project.server.requests[1]?.body as RequestBody);
const DENIED = (command: string) =>
  `Not run: not allowed in permission mode default: without an allow rule only read-only commands run, and "${command}" is not one`;

describe('-p with no permission flag: as Claude Code 2.1.197 -p', () => {
  it('json: cat runs; touch and rm are denied, never run, each an is_error result, listed in permission_denials', async () => {
    asksAll('cat victim.txt', 'touch made.txt', 'rm victim.txt');
    const run = await runCli(['-p', 'go', '--output-format', 'json'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    expect(file('made.txt')).toBe(false);
    expect(file('victim.txt')).toBe(true);
    const [cat, touch, rm] = results();
    expect(resultText(cat!)).toBe('still here');
    expect([touch, rm].map((r) => [r?.tool_use_id, r?.is_error, resultText(r!)])).toEqual([
      ['toolu_2', true, DENIED('touch made.txt')],
      ['toolu_3', true, DENIED('rm victim.txt')],
    ]);
    expect(JSON.parse(run.stdout).permission_denials).toEqual([
      { tool_name: 'Bash', tool_use_id: 'toolu_2', tool_input: { command: 'touch made.txt' } },
      { tool_name: 'Bash', tool_use_id: 'toolu_3', tool_input: { command: 'rm victim.txt' } },
    ]);
  });

  it('text: the answer on stdout, and one line on stderr per denied call naming it and the rule that would allow it', async () => {
    asksAll('ls', 'touch made.txt');
    const run = await runCli(['-p', 'go'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    expect(file('made.txt')).toBe(false);
    expect(run.stdout).toContain('victim.txt');
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      `agentloop: not run: Bash "touch made.txt": ${DENIED('touch made.txt').slice('Not run: '.length)} (to allow: --allowedTools "Bash(touch made.txt)")`,
    ]);
  });

  it('text: a file tool\'s denied call is named as the tool shows it (its path), not as "the tool"', async () => {
    const path = join(project.dir, 'a.md');
    project.server.enqueue({ content: [{ type: 'tool_use', id: 'toolu_1', name: 'Write', input: { file_path: path, content: 'x' } }], stop_reason: 'tool_use' }, answerFromResults);
    const run = await runCli(['-p', 'go'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    expect(file('a.md')).toBe(false);
    const reason = `not allowed in permission mode default: without an allow rule only read-only commands run, and "Write ${path}" is not one`;
    expect(resultText(results()[0]!)).toBe(`Not run: ${reason}`);
    expect(run.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(new RegExp(`^agentloop: not run: Write ${path}: ${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(to allow: --allowedTools "`))]);
  });

  it('stream-json: the init line says default, the result line lists the denial', async () => {
    asksAll('touch made.txt');
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--verbose'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    expect(file('made.txt')).toBe(false);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { subtype?: string; permissionMode?: string; permission_denials?: unknown[] });
    expect(lines[0]).toMatchObject({ subtype: 'init', permissionMode: 'default' });
    expect(lines.at(-1)?.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: 'toolu_1', tool_input: { command: 'touch made.txt' } }]);
  });
});

describe('the REPL on piped input, with no flag: nobody can answer a question, so what it would ask about is denied as -p denies it', () => {
  it('cat runs; touch is denied, never runs, an is_error result bound to its tool_use, one line on stderr; the next question goes on', async () => {
    asksAll('cat victim.txt', 'touch made.txt');
    project.server.enqueue({ content: [{ type: 'text', text: 'second answer' }], stop_reason: 'end_turn' });
    const run = await runCli([], { cwd: project.dir, env: project.env, input: 'go\nand now?\n' });
    expect(run.code, run.stderr).toBe(0);
    expect(file('made.txt')).toBe(false);
    const [cat, touch] = results();
    expect(resultText(cat!)).toBe('still here');
    expect([touch?.tool_use_id, touch?.is_error, resultText(touch!)]).toEqual(['toolu_2', true, DENIED('touch made.txt')]);
    expect(run.stderr.split('\n').filter((line) => line.includes('not run'))).toEqual([
      `agentloop: not run: Bash "touch made.txt": ${DENIED('touch made.txt').slice('Not run: '.length)} (to allow: --allowedTools "Bash(touch made.txt)")`,
    ]);
    expect(run.stdout).toContain('second answer');
    expect(project.server.requests).toHaveLength(3);
  });

  it.each([RUN_EVERYTHING, '--permission-mode bypassPermissions'])('%s: every call runs, as before', async (flags) => {
    asksAll('touch made.txt');
    const run = await runCli(flags.split(' '), { cwd: project.dir, env: project.env, input: 'go\n' });
    expect(run.code, run.stderr).toBe(0);
    expect(file('made.txt')).toBe(true);
    expect(run.stderr).not.toContain('not run');
  });
});

describe.each(testUsers())('--demo with no flag, as the README runs it, as $name', ({ prefix, skip }) => {
  it.skipIf(skip !== undefined)('its ls -A runs and the answer comes from its output (the demo asks only for a read-only command)', async () => {
    // A folder of the user's own, with the sessions' home in it; no IS_SANDBOX: as root too, no bypass is needed.
    const dir = mkdtempSync(join(tmpdir(), 'agentloop-demo-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'victim.txt'), 'still here');
    if (prefix.length) chownSync(dir, 65534, 65534);
    if (prefix.length) chownSync(join(dir, 'victim.txt'), 65534, 65534);
    const env = cliEnv({ AGENTLOOP_HOME: join(dir, '.home') });
    delete env.IS_SANDBOX;
    const run = await runCliAs({ prefix }, ['--demo'], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('victim.txt');
    expect(run.stderr).not.toContain('not run');
  });
});

describe('the library: runAgent runs every call its hooks let through (no permission mode)', () => {
  it('a scripted model asks for touch: it runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentloop-lib-perms-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const model = scriptedModel([reply.toolUse([{ id: 'toolu_1', name: 'bash', input: { command: 'touch made.txt' } }]), reply.text('done')]);
    const result = await runAgent('go', { model: 'scripted', modelCall: model.call, tools: defaultTools({ cwd: dir }), cwd: dir });
    expect(result.context.exitReason).toBe('completed');
    expect(existsSync(join(dir, 'made.txt'))).toBe(true);
  });
});

/** Claude Code's words, exit 1 (its setup(): root without IS_SANDBOX=1 and bypassPermissions or the allow flag). */
const REFUSAL = '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons';
const BYPASS_FLAGS = [['--dangerously-skip-permissions'], ['--permission-mode', 'bypassPermissions'], ['--allow-dangerously-skip-permissions']];

describe.each(testUsers())('the bypass flags as $name', ({ name, prefix, skip }) => {
  it.skipIf(skip !== undefined).each(BYPASS_FLAGS)('%s: refused as root unless IS_SANDBOX=1, as Claude Code refuses it; run as anyone else', async (...flags) => {
    // A folder of the user's own, with the sessions' home in it.
    const dir = mkdtempSync(join(tmpdir(), 'agentloop-bypass-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    if (prefix.length) chownSync(dir, 65534, 65534);
    const env: NodeJS.ProcessEnv = { ...project.env, AGENTLOOP_HOME: join(dir, '.home') };
    delete env.IS_SANDBOX;
    asksAll('touch made.txt');
    const run = await runCliAs({ prefix }, ['-p', 'go', ...flags], { cwd: dir, env });
    if (name === 'root') {
      expect(run.code).toBe(1);
      expect(run.stderr.split('\n')[0]).toBe(REFUSAL);
      expect(project.server.requests).toHaveLength(0);
      const sandboxed = await runCliAs({ prefix }, ['-p', 'go', ...flags], { cwd: dir, env: { ...env, IS_SANDBOX: '1' } });
      expect(sandboxed.code, sandboxed.stderr).toBe(0);
    } else {
      expect(run.code, run.stderr).toBe(0);
    }
    // --allow-dangerously-skip-permissions only lets a control request switch: the mode stays default.
    const ran = flags[0] === '--allow-dangerously-skip-permissions' ? false : true;
    expect(existsSync(join(dir, 'made.txt'))).toBe(ran);
  });
});
