/**
 * Records what Claude Code 2.1.197 does in each case of ./settingsCases.ts into ./claudeSettings.json, the reference
 * settingsRules.test.ts holds agentloop to. Claude Code runs as a process offline against the local Messages API
 * server, with a fresh HOME per case (as root: the IS_SANDBOX cases say so). To re-record:
 *
 *   CLAUDE_CODE=/work/main/bench/peers/node_modules/@anthropic-ai/claude-code/bin/claude.exe npx tsx test/permissions/recordSettings.ts
 */
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { startMessagesServer } from '../support/messagesServer.js';
import { argsOf, CASES, firstLine, outcomeOf, setUp, stepsFor, type Outcome, type SettingsCase } from './settingsCases.js';

export const FIXTURE = new URL('./claudeSettings.json', import.meta.url);

async function record(c: SettingsCase, executable: string): Promise<Outcome & { stderr: string }> {
  const server = await startMessagesServer();
  server.enqueue(...stepsFor(c));
  const { home, dir, flagArgs } = setUp(c);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    ANTHROPIC_API_KEY: 'sk-ant-test-record',
    ANTHROPIC_BASE_URL: server.url,
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...c.env,
  };
  try {
    const run = await runAsync(executable, argsOf(c, flagArgs), { cwd: dir, env });
    return { ...outcomeOf(c, dir, run.stdout, run.code), stderr: firstLine(run.stderr, home, dir) };
  } finally {
    await server.close();
    rmSync(dirname(home), { recursive: true, force: true });
  }
}

async function runAsync(file: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const { spawn } = await import('node:child_process');
  const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { code, stdout, stderr };
}

async function main(): Promise<void> {
  const executable = process.env.CLAUDE_CODE;
  if (!executable) throw new Error('set CLAUDE_CODE to the claude binary (see the comment at the top)');
  const version = spawnSync(executable, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const cases: Record<string, Outcome & { stderr: string }> = {};
  for (const c of CASES) {
    cases[c.name] = await record(c, executable);
    process.stdout.write(`${c.name}: ${JSON.stringify(cases[c.name])}\n`);
  }
  const fixture = { recordedWith: version, asRoot: process.getuid?.() === 0, command: 'CLAUDE_CODE=... npx tsx test/permissions/recordSettings.ts', cases };
  writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
}

if (process.argv[1]?.endsWith('recordSettings.ts')) await main();
