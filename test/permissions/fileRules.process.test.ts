/**
 * Which rules apply to which file tool, in agentloop as in Claude Code 2.1.197: each case of ./fileRuleCases.ts run by
 * agentloop's CLI as a process against the local Messages API, beside Claude Code's recorded answer
 * (./claudeFileRules.json, recorded by ./recordFileRules.ts). `Edit(...)` rules apply to Write, `Read(...)` rules to
 * Glob and Grep (a search leaves out what a deny rule covers; a search of a denied folder is denied); a rule naming a
 * tool without a specifier (`Edit`, `Read`) is that tool's alone. As root and as nobody.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startCheckedServer } from '../support/agentServer.js';
import { cliEnv, startCli } from '../support/cli.js';
import { testUsers } from '../support/users.js';
import { argsOf, CASES, outcomeOf, setUp, stepsFor, type FileRuleCase, type Outcome } from './fileRuleCases.js';

const recorded = JSON.parse(readFileSync(new URL('./claudeFileRules.json', import.meta.url), 'utf8')) as { cases: Record<string, Outcome> };

/**
 * Where agentloop answers in words of its own (the call's effect the same): a denial's text, and a Write under an
 * `Edit(...)` deny, which Claude Code refuses in the tool (a tool_use_error, no permission denial) and agentloop's gate
 * denies (a permission denial). Here only whether it wrote and whether the result is an error are compared.
 */
const OWN_WORDS = new Set(['allow Edit(*.txt), Write a.md', 'deny Edit(secret/**), Write secret/b.txt in acceptEdits', 'deny Read(secret/**), Grep hush in secret']);

let scratch: string;
beforeAll(() => {
  // Outside /tmp (a contained command's /tmp is its own): /var/cache as root (nobody goes through it), else the home's .cache.
  const base = process.getuid?.() === 0 ? '/var/cache/agentloop-tests' : join(homedir(), '.cache', 'agentloop-tests');
  mkdirSync(base, { recursive: true, mode: 0o755 });
  scratch = mkdtempSync(join(base, 'file-rules-'));
  chmodSync(scratch, 0o755);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function runCase(c: FileRuleCase, prefix: string[]) {
  const server = await startCheckedServer();
  onTestFinished(() => server.close());
  const { home, dir } = setUp(scratch);
  server.enqueue(...stepsFor(c, dir));
  if (prefix.length) execFileSync('chown', ['-R', '65534:65534', dirname(home)]);
  const env = cliEnv({ HOME: home, ANTHROPIC_API_KEY: 'sk-ant-test-file-rules', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: `${home}/.agentloop` });
  delete env.CLAUDE_CONFIG_DIR;
  try {
    const run = await startCli(argsOf(c), { cwd: dir, env, prefix }).done;
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
