/**
 * Claude Code's settings files hold in agentloop as in Claude Code 2.1.197: each case of ./settingsCases.ts run by
 * agentloop's CLI as a process (a fresh HOME with ~/.claude/settings.json and ~/.claude.json, the project's
 * .claude/settings.json and settings.local.json, --settings, --setting-sources) against the local Messages API, beside
 * Claude Code's recorded answer (./claudeSettings.json, recorded as root by ./recordSettings.ts): whether the command
 * ran, the denials, the init line's mode, the exit code, the line saying what a project not trusted does not give.
 * As nobody, the cases where the user matters: the root rule lets a settings file's bypassPermissions through, and
 * the rest holds the same.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startCheckedServer } from '../support/agentServer.js';
import { cliEnv, startCli } from '../support/cli.js';
import { testUsers } from '../support/users.js';
import { argsOf, CASES, firstLine, outcomeOf, setUp, stepsFor, type Outcome, type SettingsCase } from './settingsCases.js';
import { openScratchDir } from '../support/scratch.js';

const recorded = JSON.parse(readFileSync(new URL('./claudeSettings.json', import.meta.url), 'utf8')) as {
  asRoot: boolean;
  cases: Record<string, Outcome & { stderr: string }>;
};

let scratch: string;
let cleanup: () => void;
beforeAll(() => void ({ dir: scratch, cleanup } = openScratchDir('settings-')));
afterAll(() => cleanup());

async function runCase(c: SettingsCase, prefix: string[]) {
  const server = await startCheckedServer(); // a case's own: its steps hold its command
  onTestFinished(() => server.close());
  server.enqueue(...stepsFor(c));
  const { home, dir, flagArgs } = setUp(c, scratch);
  if (prefix.length) execFileSync('chown', ['-R', '65534:65534', dirname(home)]);
  const env = cliEnv({ HOME: home, ANTHROPIC_API_KEY: 'sk-ant-test-settings', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: `${home}/.agentloop`, ...c.env });
  delete env.CLAUDE_CONFIG_DIR;
  if (c.env?.IS_SANDBOX === undefined) delete env.IS_SANDBOX;
  try {
    const run = await startCli(argsOf(c, flagArgs), { cwd: dir, env, prefix }).done;
    const note = run.stderr.split('\n').find((l) => l.includes('Ignoring') || l.includes('cannot be used with root')) ?? '';
    return { ...outcomeOf(c, dir, run.stdout, run.code), stderr: firstLine(note.replace(/^agentloop: /, ''), home, dir), all: run.stderr };
  } finally {
    rmSync(dirname(home), { recursive: true, force: true });
  }
}

describe.each(testUsers())('settings files as $name', ({ name, prefix, skip }) => {
  // The root rule's case is root's (as anyone else, the next test).
  const cases = CASES.filter((c) => name === 'root' || !c.name.endsWith('no IS_SANDBOX'));
  it.skipIf(skip !== undefined || !recorded.asRoot).each(cases.map((c) => [c.name, c] as const))('%s: as Claude Code', async (_, c) => {
    const { all, ...got } = await runCase(c, prefix);
    expect(got, all).toEqual(recorded.cases[c.name]);
  });

  it.skipIf(skip !== undefined || name === 'root')('a settings file\'s bypassPermissions runs the command without IS_SANDBOX', async () => {
    const c = CASES.find((k) => k.name === 'defaultMode bypassPermissions in user settings, no IS_SANDBOX') as SettingsCase;
    const { all, ...got } = await runCase(c, prefix);
    expect(got, all).toEqual({ ran: true, denials: 0, permissionMode: 'bypassPermissions', exitCode: 0, stderr: '' });
  });
});
