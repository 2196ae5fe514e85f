/**
 * Records what Claude Code 2.1.197 does in each case of ./settingsCases.ts into ./claudeSettings.json, the reference
 * settingsRules.test.ts holds agentloop to. Claude Code runs as a process offline against the local Messages API
 * server, with a fresh HOME per case (as root: the IS_SANDBOX cases say so). To re-record:
 *
 *   npx tsx test/permissions/recordSettings.ts
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { claudeCodeBinary, claudeCodeEnv, claudeCodeVersion, runToEnd } from '../support/claudeCode.js';
import { startMessagesServer } from '../support/messagesServer.js';
import { argsOf, CASES, firstLine, outcomeOf, setUp, stepsFor, type Outcome, type SettingsCase } from './settingsCases.js';

export const FIXTURE = new URL('./claudeSettings.json', import.meta.url);

async function record(c: SettingsCase, executable: string): Promise<Outcome & { stderr: string }> {
  const server = await startMessagesServer();
  server.enqueue(...stepsFor(c));
  const { home, dir, flagArgs } = setUp(c);
  const env = claudeCodeEnv(home, server.url, c.env);
  try {
    const run = await runToEnd(executable, argsOf(c, flagArgs), { cwd: dir, env });
    return { ...outcomeOf(c, dir, run.stdout, run.code), stderr: firstLine(run.stderr, home, dir) };
  } finally {
    await server.close();
    rmSync(dirname(home), { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const executable = claudeCodeBinary();
  const version = claudeCodeVersion(executable);
  const cases: Record<string, Outcome & { stderr: string }> = {};
  for (const c of CASES) {
    cases[c.name] = await record(c, executable);
    process.stdout.write(`${c.name}: ${JSON.stringify(cases[c.name])}\n`);
  }
  const fixture = { recordedWith: version, asRoot: process.getuid?.() === 0, command: 'CLAUDE_CODE=... npx tsx test/permissions/recordSettings.ts', cases };
  writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
}

if (process.argv[1]?.endsWith('recordSettings.ts')) await main();
