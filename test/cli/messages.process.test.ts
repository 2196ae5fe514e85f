/**
 * What the CLI says, read in one glance (issue 10 item 5): every missing setting named at once, in one line, and
 * counts in the right number. The CLI runs as a process against the local Messages API server.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { plural } from '../../src/core/plural.js';
import { bashUse } from '../support/agentServer.js';
import { cliEnv, runCli } from '../support/cli.js';
import { openCliProject, type CliProject } from '../support/project.js';

describe('plural()', () => {
  it.each([
    [0, 'turn', '0 turns'],
    [1, 'turn', '1 turn'],
    [2, 'turn', '2 turns'],
    [1, 'entry', '1 entry'],
    [3, 'entry', '3 entries'],
    [2, 'day', '2 days'],
    [1, 'tool result', '1 tool result'],
    [2, 'tool result', '2 tool results'],
    [2, 'child', '2 children', 'children'],
  ])('%i %s', (count, word, expected, form?: string) => {
    expect(plural(count, word, form)).toBe(expected);
  });
});

describe('missing settings: all named at once, one line, exit 2', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agentloop-messages-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('no key and no model: both in the one line', async () => {
    const run = await runCli(['-p', 'x'], { cwd: dir, env: cliEnv() });
    expect(run.code).toBe(2);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^agentloop: No API key and no model: set ANTHROPIC_API_KEY .* and MODEL_ID \(or --model sonnet\)/);
  });

  it('--model names the model: only the key is missing', async () => {
    const run = await runCli(['-p', '--model', 'sonnet', 'x'], { cwd: dir, env: cliEnv() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^agentloop: No API key: set ANTHROPIC_API_KEY/);
    expect(run.stderr).not.toMatch(/MODEL_ID/);
  });

  it('the demo: one entry in the directory is "1 entry"', async () => {
    mkdirSync(join(dir, 'work'));
    writeFileSync(join(dir, 'work', 'only.txt'), 'x');
    const run = await runCli(['--demo', '--cwd', join(dir, 'work')], { cwd: dir, env: cliEnv({ AGENTLOOP_HOME: join(dir, '.home') }) });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('The working directory has 1 entry:\n- only.txt');
  });
});

describe('counts in the right number', () => {
  let project: CliProject;
  beforeEach(async () => {
    project = await openCliProject('plurals');
  });
  afterEach(() => project.close());

  it('--max-turns 1: "Stopped after 1 turn", and the usage line says "1 model call"', async () => {
    project.server.enqueue({ content: [bashUse('toolu_1', 'true')], stop_reason: 'tool_use' });
    const run = await runCli(['-p', '--verbose', '--max-turns', '1', 'go'], { cwd: project.dir, env: project.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Stopped after 1 turn (--max-turns).');
    expect(run.stderr).toMatch(/^1 model call · /m);
  });

  it('--max-turns 2: "Stopped after 2 turns", "2 model calls"', async () => {
    project.server.enqueue(
      { content: [bashUse('toolu_1', 'true')], stop_reason: 'tool_use' },
      { content: [bashUse('toolu_2', 'true')], stop_reason: 'tool_use' },
    );
    const run = await runCli(['-p', '--verbose', '--max-turns', '2', 'go'], { cwd: project.dir, env: project.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Stopped after 2 turns (--max-turns).');
    expect(run.stderr).toMatch(/^2 model calls · /m);
  });
});
