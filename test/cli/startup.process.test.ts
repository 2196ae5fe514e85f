import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, SELF, cliEnv } from '../support/cli.js';
import { writeModuleLogHook } from '../support/moduleLog.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-startup-'));
  writeModuleLogHook(dir); // notes every module the CLI resolves
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI and lists the project's files it loaded (relative to the root), each once, in order. */
function loaded(args: string[]) {
  const log = join(dir, `modules-${args.join('_')}.log`);
  writeFileSync(log, '');
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, CLI, ...args], {
    cwd: dir,
    env: { ...cliEnv(), MODULE_LOG: log },
    encoding: 'utf8',
  });
  const urls = readFileSync(log, 'utf8').split('\n');
  const files = [...new Set(urls)]
    .filter((url) => url.startsWith('file:') && !url.startsWith(pathToFileURL(dir).href))
    .map((url) => relative(root, fileURLToPath(url)));
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, files };
}

/**
 * The CLI ships bundled (scripts/build-cli.mjs): dist/cli/main.js, and in dist/cli/chunks/ one
 * chunk per part a command loads later, named after its module (`usage-HASH.js`), plus shared
 * chunks (`chunk-HASH.js`). A part is a chunk's name without its hash.
 */
const parts = (files: string[]) => files.map((f) => f.replace(/^dist\/cli\/(chunks\/)?/, '').replace(/-[A-Z0-9]{8}\.js$|\.js$/, ''));
const bytes = (files: string[]) => files.reduce((sum, f) => sum + readFileSync(join(root, f)).length, 0);

describe('start-up: what the quick answers load', () => {
  it.each([['--version'], ['-v']])('%s loads the entry point alone (and the bundle’s few helpers)', (flag) => {
    const run = loaded([flag]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${version}\n`);
    expect(new Set(parts(run.files))).toEqual(new Set(['main', 'chunk']));
    expect(bytes(run.files)).toBeLessThan(16_000);
  });

  it.each([[['--help']], [['-h']], [['worker', '--help']]])('%j loads only the entry point, the help and the option table (no parser)', (flag) => {
    const run = loaded(flag);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: agentloop/);
    expect(run.stdout).toContain(flag[0] === 'worker' ? '--register' : '--output-format');
    expect(parts(run.files).filter((p) => p !== 'chunk').sort()).toEqual(['help', 'main']);
    // The option table (~17 kB with argValues, more with the Agent SDK's flags: 40.5 kB at cacad29; 48.1 kB at c98a5e3 with
    // `mcp list|get`, --json-schema and the permission defaults' help; 52.3 kB with the thinking flags, --tools and the
    // prompt files; 63.8 kB at session h's end with Claude Code's 28 taken flags (claudeFlags.ts, 6.9 kB), --settings,
    // --lang and the durable permission flags), the sandbox's protected names it checks, the entry's redaction; 65.9 kB
    // at session i's end with --agents (its check alone, cli/commandLine/agentsJson.ts: the agent files' reader had made it 69.6 kB),
    // --context-window and the durable help lines.
    expect(bytes(run.files)).toBeLessThan(70_000);
  });

  it('a bad flag loads the parser and the option table, not the help nor anything of the loop', () => {
    const run = loaded(['--bogus']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`agentloop: unknown option --bogus\nsee ${SELF} --help\n`);
    expect(parts(run.files).filter((p) => p !== 'chunk').sort()).toEqual(['args', 'main']);
    // 65.1 kB with the thinking flags' parse and checks (core/thinking.js, 2.4 kB, and their help texts); 79.6 kB with
    // the flags of session h (the same as --help's above); 78.9 kB with session i's (82.6 kB before --agents' check
    // moved out of cli/setup/agents.ts).
    expect(bytes(run.files)).toBeLessThan(84_000);
  });

  it('a run loads the runner (the quick path is only for the flags alone)', () => {
    const run = loaded(['-p', 'x']); // no key configured: exits 2 after loading the runner
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/ANTHROPIC_API_KEY/);
    expect(parts(run.files)).toContain('run');
    expect(parts(run.files)).not.toContain('help');
  });
});

describe('start-up: the quick answers agree with the parser', () => {
  const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env: cliEnv(), encoding: 'utf8' });

  it('--version with other flags still goes through the parser', () => {
    expect(cli(['-p', 'x', '--version']).stdout).toBe(`${version}\n`);
    const bad = cli(['--version', '--bogus']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown option --bogus/);
  });

  it('--help with a prompt prints the usage and runs nothing', () => {
    const run = cli(['-p', 'x', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: agentloop/);
  });

  it('a reader that is gone is no error', () => {
    const run = spawnSync('sh', ['-c', `"${process.execPath}" "${CLI}" --help | true`], {
      cwd: dir,
      env: cliEnv(),
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
  });
});
