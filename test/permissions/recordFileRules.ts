/**
 * Records what Claude Code 2.1.197 does in each case of ./fileRuleCases.ts into ./claudeFileRules.json, the reference
 * fileRules.test.ts holds agentloop to. Claude Code runs as a process offline against the local Messages API server,
 * with a fresh HOME per case. To re-record:
 *
 *   CLAUDE_CODE=/work/main/bench/peers/node_modules/@anthropic-ai/claude-code/bin/claude.exe npx tsx test/permissions/recordFileRules.ts
 */
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { startMessagesServer } from '../support/messagesServer.js';
import { argsOf, CASES, outcomeOf, setUp, stepsFor, type FileRuleCase, type Outcome } from './fileRuleCases.js';

export const FIXTURE = new URL('./claudeFileRules.json', import.meta.url);

async function record(c: FileRuleCase, executable: string): Promise<Outcome> {
  const server = await startMessagesServer();
  const { home, dir } = setUp();
  server.enqueue(...stepsFor(c, dir));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    ANTHROPIC_API_KEY: 'sk-ant-test-record',
    ANTHROPIC_BASE_URL: server.url,
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  try {
    const child = spawn(executable, argsOf(c), { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    await new Promise((resolve) => child.on('close', resolve));
    return outcomeOf(c, dir, stdout);
  } finally {
    await server.close();
    rmSync(dirname(home), { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const executable = process.env.CLAUDE_CODE;
  if (!executable) throw new Error('set CLAUDE_CODE to the claude binary (see the comment at the top)');
  const version = spawnSync(executable, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const cases: Record<string, Outcome> = {};
  for (const c of CASES) {
    cases[c.name] = await record(c, executable);
    process.stdout.write(`${c.name}: ${JSON.stringify(cases[c.name])}\n`);
  }
  const fixture = { recordedWith: version, command: 'CLAUDE_CODE=... npx tsx test/permissions/recordFileRules.ts', cases };
  writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
}

if (process.argv[1]?.endsWith('recordFileRules.ts')) await main();
