/**
 * Records what Claude Code 2.1.197 does with its settings files' `env` and `model` in each case of
 * ./settingsEnvCases.ts into ./claudeSettingsEnv.json (settingsEnv.process.test.ts holds agentloop to it). Claude Code runs as
 * a process offline against the local Messages API server, with a fresh HOME per case. To re-record:
 *
 *   CLAUDE_CODE=/work/main/bench/peers/node_modules/@anthropic-ai/claude-code/bin/claude.exe npx tsx test/cli/setup/recordSettingsEnv.ts
 */
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { startMessagesServer, type RequestBody } from '../../support/messagesServer.js';
import { lastToolResults, resultText } from '../../support/agentServer.js';
import { CASES, COMMAND, setUp, type SettingsEnvCase, type SettingsEnvOutcome } from './settingsEnvCases.js';

export const FIXTURE = new URL('./claudeSettingsEnv.json', import.meta.url);

async function record(c: SettingsEnvCase, executable: string): Promise<SettingsEnvOutcome> {
  const api = await startMessagesServer();
  api.enqueue({ content: [{ type: 'tool_use', id: 'toolu_env', name: 'Bash', input: { command: COMMAND } }], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' });
  const { root, home, dir } = setUp(c);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ANTHROPIC_API_KEY: 'sk-ant-test-record', ANTHROPIC_BASE_URL: api.url, DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', ...c.env };
  try {
    // Its own session (detached): Claude Code signals its process group as it ends.
    const child = spawn(executable, ['-p', 'go', '--allowedTools', 'Bash', ...(c.args ?? [])], { cwd: dir, env, stdio: 'ignore', detached: true });
    await new Promise((resolve) => child.on('close', resolve));
    const bodies = api.requests.flatMap((r) => ((r.body as RequestBody | undefined)?.messages ? [r.body as RequestBody] : []));
    const result = bodies.flatMap((b) => lastToolResults(b)).find((r) => r.tool_use_id === 'toolu_env');
    return { model: bodies[0]?.model, seen: result ? resultText(result) : undefined };
  } finally {
    await api.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const executable = process.env.CLAUDE_CODE;
  if (!executable) throw new Error('set CLAUDE_CODE to the claude binary (see the comment at the top)');
  const version = spawnSync(executable, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const cases: Record<string, SettingsEnvOutcome> = {};
  for (const c of CASES) {
    cases[c.name] = await record(c, executable);
    process.stdout.write(`${c.name}: ${JSON.stringify(cases[c.name])}\n`);
  }
  writeFileSync(FIXTURE, `${JSON.stringify({ recordedWith: version, command: 'CLAUDE_CODE=... npx tsx test/cli/setup/recordSettingsEnv.ts', cases }, null, 1)}\n`);
}

if (process.argv[1]?.endsWith('recordSettingsEnv.ts')) await main();
