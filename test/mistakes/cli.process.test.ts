/** `agentloop --demo --mistake`, run as a process (the bundled CLI, as shipped). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MISTAKE_NAMES } from '../../src/mistakes/names.js';
import { spawn } from 'node:child_process';
import { CLI, SELF, cliEnv, runCli } from '../support/cli.js';
import { waitFor } from '../support/sessions.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-mistake-cli-'));
  writeFileSync(join(dir, 'report.csv'), 'a,b');
  env = cliEnv({ AGENTLOOP_HOME: join(dir, '.home') });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('agentloop --demo --mistake', () => {
  it('list: names every mistake with what it does, exit 0', async () => {
    const run = await runCli(['--demo', '--mistake', 'list'], { cwd: dir, env });
    expect(run.code).toBe(0);
    for (const name of MISTAKE_NAMES) expect(run.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });

  it('unbound-result: shows the tool ran, the request, the validator, the API error, the fix at a real line, and the compare command', { timeout: 90_000 }, async () => {
    const run = await runCli(['--demo', '--mistake', 'unbound-result'], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('$ ls -A');
    expect(run.stdout).toContain('messages[2] user: tool_result (no tool_use_id)');
    expect(run.stdout).toContain('messages[2] (user) has a tool_result without tool_use_id');
    expect(run.stdout).not.toContain('undefined');
    expect(run.stdout).toContain('The API refuses it: 400 invalid_request_error\n  messages.2.content.0.tool_result.tool_use_id: Field required');
    // The cited line is the current line of that file.
    const cited = /^ {2}(src\/[\w/]+\.ts):(\d+): (.+)$/m.exec(run.stdout);
    expect(cited).not.toBeNull();
    const [, file, line, text] = cited as RegExpExecArray;
    expect(readFileSync(join(ROOT, file as string), 'utf8').split('\n')[Number(line) - 1]?.trim()).toBe(text);
    expect(text).toMatch(/^recordToolResult:/);
    // Both runs are saved sessions of this home, told apart by their labels.
    const [, command, mistaken, correct] = /^ {2}(.+) view --compare (\S+) (\S+)$/m.exec(run.stdout) ?? [];
    const sessions = await runCli(['sessions', '--output-format', 'json'], { cwd: dir, env });
    const listed = JSON.parse(sessions.stdout) as Array<{ id: string; label?: string }>;
    expect(listed.find((s) => s.id === mistaken)?.label).toBe('mistake unbound-result');
    expect(listed.find((s) => s.id === correct)?.label).toBe('correct run (for mistake unbound-result)');
    const table = (await runCli(['sessions'], { cwd: dir, env })).stdout;
    expect(table).toMatch(new RegExp(`^${mistaken?.slice(0, 8)} .* model_error .*\\[mistake unbound-result\\] List the files`, 'm'));
    expect(table).toMatch(new RegExp(`^${correct?.slice(0, 8)} .* completed .*\\[correct run \\(for mistake unbound-result\\)\\]`, 'm'));

    // The printed command works as printed, from another directory (no agentloop on the PATH here).
    expect(command).toBe(`node ${CLI}`);
    const viewer = spawn('sh', ['-c', `exec ${command} view --compare ${mistaken} ${correct}`], { cwd: tmpdir(), env });
    let out = '';
    viewer.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitFor('the viewer’s URL', () => /^http:\/\/127\.0\.0\.1:\d+\/\?token=\S+&compare=\S+$/m.test(out), 20_000);
      const url = new URL(out.trim());
      expect(url.searchParams.get('compare')).toBe(`${mistaken},${correct}`);
      expect((await fetch(url)).status).toBe(200);
    } finally {
      viewer.kill('SIGINT');
    }
  });

  it('a name it does not know, or --mistake without --demo: one line and a pointer, exit 2, nothing run', async () => {
    const unknown = await runCli(['--demo', '--mistake', 'forget-everything'], { cwd: dir, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe(`agentloop: no mistake "forget-everything": see ${SELF} --demo --mistake list`);
    const alone = await runCli(['--mistake', 'drop-message'], { cwd: dir, env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/^agentloop: --mistake goes with --demo/);
    expect(unknown.stderr + alone.stderr).not.toContain('$ ls');
  });
});
