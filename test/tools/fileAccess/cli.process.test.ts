/**
 * `-p` runs of the CLI exercise each file tool with Claude Code's inputs (the calls of cases.ts, which Claude Code
 * 2.1.197 answered in claudeCode.json): the CLI as a process against the local Messages API server, offered the
 * tools by `--tools` as Claude Code is, every call allowed; each stream-json `user` line carries Claude Code's
 * tool_result text and its `tool_use_result` object. Under the permission modes: Read runs unasked, Write and Edit
 * only when allowed (`acceptEdits` inside the working directory, an `Edit(...)` rule).
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_EVERYTHING, cliEnv, runCli } from '../../support/cli.js';
import { startMessagesServer } from '../../support/messagesServer.js';
import { CASES, callsInTurn, setUpCase, withCwd } from './cases.js';
import { comparable } from './compare.js';
import { toolResultsOf, type RecordedResult } from './record.js';

const fixture = JSON.parse(readFileSync(new URL('./claudeCode.json', import.meta.url), 'utf8')) as { cases: Record<string, RecordedResult[]> };
const base = mkdtempSync(join(tmpdir(), 'agentloop-filescli-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('-p runs with the file tools, as Claude Code answers them', () => {
  for (const fileCase of CASES) {
    it(`${fileCase.name}: ${fileCase.calls.length} calls through the CLI`, async () => {
      const cwd = realpathSync(mkdtempSync(join(base, `${fileCase.name}-`)));
      setUpCase(cwd, fileCase);
      const server = await startMessagesServer();
      try {
        const step = callsInTurn(fileCase, cwd);
        for (let i = 0; i <= fileCase.calls.length + 2; i++) server.enqueue(step);
        const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url, AGENTLOOP_HOME: join(base, `home-${fileCase.name}`), HOME: join(base, 'nohome') });
        const args = ['-p', 'go', '--output-format', 'stream-json', '--verbose', '--tools', 'Bash,Read,Write,Edit,Glob,Grep', RUN_EVERYTHING];
        const run = await runCli(args, { cwd, env });
        expect(run.code, run.stderr).toBe(0);
        const results = toolResultsOf(run.stdout).map((r) => withCwd(r, cwd, '$CWD'));
        expect(results).toHaveLength(fileCase.calls.length);
        fileCase.calls.forEach((call, i) => {
          const want = fixture.cases[fileCase.name]?.[i] as RecordedResult;
          expect(comparable(call, results[i] as RecordedResult), `${fileCase.name} #${i}: ${call.tool} ${JSON.stringify(call.input)}`).toEqual(comparable(call, want));
        });
      } finally {
        await server.close();
      }
    });
  }
});

describe('-p runs with the file tools under the permission modes, as Claude Code runs them', () => {
  const calls = (cwd: string) => [
    { tool: 'Read' as const, input: { file_path: join(cwd, 'a.txt') } },
    { tool: 'Write' as const, input: { file_path: join(cwd, 'b.txt'), content: 'b\n' } },
    { tool: 'Edit' as const, input: { file_path: join(cwd, 'a.txt'), old_string: 'a', new_string: 'A' } },
    { tool: 'Write' as const, input: { file_path: join(cwd, '..', 'outside.txt'), content: 'x\n' } },
  ];
  for (const [flags, ran] of [
    [[], [true, false, false, false]],
    [['--permission-mode', 'acceptEdits'], [true, true, true, false]],
    [['--allowedTools', 'Edit(a.txt)'], [true, false, true, false]],
  ] as const) {
    it(`${flags.join(' ') || 'no flag'}: Read runs; Write and Edit only inside the working directory and when allowed`, async () => {
      const dir = realpathSync(mkdtempSync(join(base, 'modes-')));
      const cwd = join(dir, 'project');
      setUpCase(cwd, { name: 'modes', files: { 'a.txt': { content: 'a\n' } }, calls: [] });
      const fileCase = { name: 'modes', files: {}, calls: calls(cwd) };
      const server = await startMessagesServer();
      try {
        const step = callsInTurn(fileCase, cwd);
        for (let i = 0; i <= fileCase.calls.length + 2; i++) server.enqueue(step);
        const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url, AGENTLOOP_HOME: join(dir, 'home') });
        const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--verbose', ...flags], { cwd, env });
        expect(run.code, run.stderr).toBe(0);
        expect(toolResultsOf(run.stdout).map((r) => !r.isError)).toEqual(ran);
        expect([existsSync(join(cwd, 'b.txt')), readFileSync(join(cwd, 'a.txt'), 'utf8'), existsSync(join(dir, 'outside.txt'))]).toEqual([ran[1], ran[2] ? 'A\n' : 'a\n', false]);
      } finally {
        await server.close();
      }
    });
  }
});

describe('a resumed session: the files read before count as read, as in Claude Code', () => {
  it('-p --resume writes a file the first run read, unchanged since; a changed one is refused', async () => {
    const dir = realpathSync(mkdtempSync(join(base, 'resume-')));
    const cwd = join(dir, 'project');
    setUpCase(cwd, { name: 'resume', files: { 'a.txt': { content: 'a\n' }, 'b.txt': { content: 'b\n' } }, calls: [] });
    const server = await startMessagesServer();
    try {
      const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url, AGENTLOOP_HOME: join(dir, 'home') });
      const first = { name: 'first', files: {}, calls: [{ tool: 'Read' as const, input: { file_path: join(cwd, 'a.txt') } }, { tool: 'Read' as const, input: { file_path: join(cwd, 'b.txt') } }] };
      const firstSteps = callsInTurn(first, cwd);
      for (let i = 0; i <= first.calls.length; i++) server.enqueue(firstSteps);
      const run1 = await runCli(['-p', 'go', '--output-format', 'json'], { cwd, env });
      expect(run1.code, run1.stderr).toBe(0);
      const sessionId = (JSON.parse(run1.stdout) as { session_id: string }).session_id;
      writeFileSync(join(cwd, 'b.txt'), 'changed by the user\n');
      const second = {
        name: 'second',
        files: {},
        calls: [
          { tool: 'Write' as const, input: { file_path: join(cwd, 'a.txt'), content: 'A\n' } },
          { tool: 'Write' as const, input: { file_path: join(cwd, 'b.txt'), content: 'B\n' } },
        ],
      };
      const steps = callsInTurn(second, cwd);
      for (let i = 0; i <= second.calls.length; i++) server.enqueue(steps);
      const run2 = await runCli(['-p', 'go on', '--resume', sessionId, '--output-format', 'stream-json', '--verbose', RUN_EVERYTHING], { cwd, env });
      expect(run2.code, run2.stderr).toBe(0);
      const [a, b] = toolResultsOf(run2.stdout);
      expect(a).toMatchObject({ isError: false });
      expect(b?.content).toMatch(/modified since read/);
      expect([readFileSync(join(cwd, 'a.txt'), 'utf8'), readFileSync(join(cwd, 'b.txt'), 'utf8')]).toEqual(['A\n', 'changed by the user\n']);
    } finally {
      await server.close();
    }
  });
});
