/**
 * Claude Code's settings files' `env` and `model` (src/settings/envModel.ts, src/cli/setup/settingsEnv.ts), held to what
 * Claude Code 2.1.197 did in each case of ./settingsEnvCases.ts (./claudeSettingsEnv.json, recorded by
 * ./recordSettingsEnv.ts): the model of the request and what a command sees, with the CLI as a process; then with the
 * real Agent SDK's `settings` option (it passes `--settings`); and the REPL's rule for a project not trusted.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL } from '../../../src/core/models.js';
import { settingsEnvAndModel } from '../../../src/settings/envModel.js';
import { loadClaudeSettings } from '../../../src/settings/files.js';
import { bashUse, lastToolResults, resultText } from '../../support/agentServer.js';
import { cliEnv, startCli } from '../../support/cli.js';
import { startMessagesServer, type MessagesServer, type RequestBody } from '../../support/messagesServer.js';
import { collectSdk } from '../../support/sdkCollect.js';
import { CASES, COMMAND, setUp, type SettingsEnvCase, type SettingsEnvOutcome } from './settingsEnvCases.js';
import { FIXTURE } from './recordSettingsEnv.js';

const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { cases: Record<string, SettingsEnvOutcome> };
/** Claude Code's default model when nothing names one: agentloop's is the same name. */
const CLAUDE_DEFAULT = 'claude-opus-4-8';

function outcome(server: MessagesServer): SettingsEnvOutcome {
  const bodies = server.requests.flatMap((r) => ((r.body as RequestBody | undefined)?.messages ? [r.body as RequestBody] : []));
  const result = bodies.flatMap((b) => lastToolResults(b)).find((r) => r.tool_use_id === 'toolu_env');
  return { model: bodies[0]?.model, seen: result ? resultText(result) : undefined };
}

/** The CLI's environment for case `c`: no model variable of the tests', Claude Code's folder in the case's home. */
function envFor(c: SettingsEnvCase, server: MessagesServer, home: string): NodeJS.ProcessEnv {
  const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-settings', ANTHROPIC_BASE_URL: server.url, HOME: home, AGENTLOOP_HOME: join(home, 'agentloop'), ...c.env });
  delete env.CLAUDE_CONFIG_DIR;
  delete env.MODEL_ID;
  for (const name of ['FOO', 'BAR', 'BAZ', 'QUX', 'ANTHROPIC_MODEL']) if (!c.env?.[name]) delete env[name];
  return env;
}

describe("settings files' env and model, as Claude Code applies them", () => {
  it('the recording names the same default model as agentloop', () => {
    expect(DEFAULT_MODEL).toBe(CLAUDE_DEFAULT);
  });

  for (const c of CASES) {
    it(`${c.name}: the request's model and what a command sees match Claude Code's`, async () => {
      const server = await startMessagesServer();
      const { root, home, dir } = setUp(c);
      try {
        server.enqueue({ content: [bashUse('toolu_env', COMMAND)], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' });
        const run = await startCli(['-p', 'go', '--allowedTools', 'Bash', ...(c.args ?? [])], { cwd: dir, env: envFor(c, server, home) }).done;
        expect(run.code, run.stderr).toBe(0);
        expect(outcome(server)).toEqual(recorded.cases[c.name]);
      } finally {
        await server.close();
        rmSync(root, { recursive: true, force: true });
      }
    }, 60_000);
  }

  it("the Agent SDK's settings option (a JSON text, a file) sets the run's env and model", async () => {
    for (const c of CASES.filter((x) => x.args?.[0] === '--settings')) {
      const server = await startMessagesServer();
      const { root, home, dir } = setUp(c);
      try {
        server.enqueue({ content: [bashUse('toolu_env', COMMAND)], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' });
        const project = { server, dir, home: join(home, 'agentloop'), env: envFor(c, server, home), close: async () => undefined };
        const { thrown } = await collectSdk(project, 'go', { settings: c.args![1]!, allowedTools: ['Bash'] });
        expect(thrown).toBeUndefined();
        expect(outcome(server), c.name).toEqual(recorded.cases[c.name]);
      } finally {
        await server.close();
        rmSync(root, { recursive: true, force: true });
      }
    }
  }, 120_000);

  it("in the REPL, a project not trusted sets no variable (its model still counts); -p applies it, as Claude Code's -p", () => {
    const c = { name: 'untrusted', project: { env: { FOO: 'project' }, model: 'claude-haiku-4-5' }, local: { env: { BAZ: 'local' } } };
    const { root, home, dir } = setUp(c);
    try {
      const files = loadClaudeSettings({ cwd: dir, env: { HOME: home } });
      expect(settingsEnvAndModel(files, true)).toEqual({ env: { BAZ: 'local' }, model: 'claude-haiku-4-5', notes: [`agentloop: the env of ${join(dir, '.claude', 'settings.json')} is not applied: this workspace has not been trusted.`] });
      expect(settingsEnvAndModel(files, false)).toEqual({ env: { FOO: 'project', BAZ: 'local' }, model: 'claude-haiku-4-5', notes: [] });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
