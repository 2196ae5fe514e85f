/**
 * Which rules apply to which file tool, in agentloop as in Claude Code 2.1.197: each case of ./fileRuleCases.ts run by
 * agentloop's CLI as a process against the local Messages API, beside Claude Code's recorded answer
 * (./claudeFileRules.json, recorded by ./recordFileRules.ts). `Edit(...)` rules apply to Write, `Read(...)` rules to
 * Glob and Grep (a search leaves out what a deny rule covers; a search of a denied folder is denied); a rule naming a
 * tool without a specifier (`Edit`, `Read`) is that tool's alone. And the CLI started from a link to the project, with
 * calls naming by the real folder what a deny rule covers: not passed by (the CLI's working directory is the process's,
 * already real; a library run given a link is linkedCwd.process.test.ts). As root and as nobody.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startCheckedServer } from '../support/agentServer.js';
import { cliEnv, startCli } from '../support/cli.js';
import { testUsers } from '../support/users.js';
import { argsOf, CASES, outcomeOf, setUp, stepsFor, type FileRuleCase, type Outcome } from './fileRuleCases.js';
import { openScratchDir } from '../support/scratch.js';

const recorded = JSON.parse(readFileSync(new URL('./claudeFileRules.json', import.meta.url), 'utf8')) as { cases: Record<string, Outcome> };

/**
 * Where agentloop answers in words of its own (the call's effect the same): a denial's text, and a Write under an
 * `Edit(...)` deny, which Claude Code refuses in the tool (a tool_use_error, no permission denial) and agentloop's gate
 * denies (a permission denial). Here only whether it wrote and whether the result is an error are compared.
 */
const OWN_WORDS = new Set(['allow Edit(*.txt), Write a.md', 'deny Edit(secret/**), Write secret/b.txt in acceptEdits', 'deny Read(secret/**), Grep hush in secret']);

let scratch: string;
let cleanup: () => void;
beforeAll(() => void ({ dir: scratch, cleanup } = openScratchDir('file-rules-')));
afterAll(() => cleanup());

/** Runs a case; `linked`: from a link to the project folder, the call naming paths by the real folder. */
async function runCase(c: FileRuleCase, prefix: string[], linked = false) {
  const server = await startCheckedServer();
  onTestFinished(() => server.close());
  const { home, dir } = setUp(scratch);
  const cwd = linked ? join(dirname(dir), 'linked') : dir;
  if (linked) symlinkSync(dir, cwd);
  server.enqueue(...stepsFor(c, dir));
  if (prefix.length) execFileSync('chown', ['-R', '65534:65534', dirname(home)]);
  const env = cliEnv({ HOME: home, ANTHROPIC_API_KEY: 'sk-ant-test-file-rules', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: `${home}/.agentloop` });
  delete env.CLAUDE_CONFIG_DIR;
  try {
    const run = await startCli(argsOf(c), { cwd, env, prefix }).done;
    return { got: outcomeOf(c, dir, run.stdout), all: run.stderr + run.stdout };
  } finally {
    rmSync(dirname(home), { recursive: true, force: true });
  }
}

describe.each(testUsers())('file tools under rules as $name', ({ prefix, skip }) => {
  it.skipIf(skip !== undefined).each(CASES.map((c) => [c.name, c] as const))('%s: as Claude Code', async (name, c) => {
    const { got, all } = await runCase(c, prefix);
    const want = recorded.cases[name] as Outcome;
    if (OWN_WORDS.has(name)) expect({ wrote: got.wrote, isError: got.isError }, all).toEqual({ wrote: want.wrote, isError: want.isError });
    else expect(got, all).toEqual(want);
  });
});

/** Calls naming by its real path what `Read(secret/**)` covers, from a link to the project. */
const THROUGH_REAL_PATH: FileRuleCase[] = [
  { name: 'deny Read(secret/**), Read secret/key.txt', args: ['--disallowedTools', 'Read(secret/**)'], tool: 'Read', input: (d) => ({ file_path: join(d, 'secret', 'key.txt') }) },
  { name: 'deny Read(secret/**), Grep hush in the project', args: ['--disallowedTools', 'Read(secret/**)'], tool: 'Grep', input: (d) => ({ pattern: 'hush', path: d, output_mode: 'content' }) },
];

describe.each(testUsers())('file tools under rules, from a link to the project, as $name', ({ prefix, skip }) => {
  it.skipIf(skip !== undefined).each(THROUGH_REAL_PATH.map((c) => [c.name, c] as const))('%s, named by the real path: covered', async (_name, c) => {
    const { got, all } = await runCase(c, prefix, true);
    expect(got.result, all).not.toContain('hush secret');
    if (c.tool === 'Read') expect({ isError: got.isError, denials: got.denials }, all).toEqual({ isError: true, denials: ['Read'] });
    else expect(got.result, all).toContain('notes.txt:1:hush here');
  });
});
