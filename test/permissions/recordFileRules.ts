/**
 * Records what Claude Code 2.1.197 does in each case of ./fileRuleCases.ts into ./claudeFileRules.json, the reference
 * fileRules.test.ts holds agentloop to. Claude Code runs as a process offline against the local Messages API server,
 * with a fresh HOME per case. To re-record:
 *
 *   npx tsx test/permissions/recordFileRules.ts
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { claudeCodeBinary, claudeCodeEnv, claudeCodeVersion, runToEnd } from '../support/claudeCode.js';
import { startMessagesServer } from '../support/messagesServer.js';
import { argsOf, CASES, outcomeOf, setUp, stepsFor, type FileRuleCase, type Outcome } from './fileRuleCases.js';

export const FIXTURE = new URL('./claudeFileRules.json', import.meta.url);

async function record(c: FileRuleCase, executable: string): Promise<Outcome> {
  const server = await startMessagesServer();
  const { home, dir } = setUp();
  server.enqueue(...stepsFor(c, dir));
  const env = claudeCodeEnv(home, server.url);
  try {
    const { stdout } = await runToEnd(executable, argsOf(c), { cwd: dir, env });
    return outcomeOf(c, dir, stdout);
  } finally {
    await server.close();
    rmSync(dirname(home), { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const executable = claudeCodeBinary();
  const version = claudeCodeVersion(executable);
  const cases: Record<string, Outcome> = {};
  for (const c of CASES) {
    cases[c.name] = await record(c, executable);
    process.stdout.write(`${c.name}: ${JSON.stringify(cases[c.name])}\n`);
  }
  const fixture = { recordedWith: version, command: 'CLAUDE_CODE=... npx tsx test/permissions/recordFileRules.ts', cases };
  writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
}

if (process.argv[1]?.endsWith('recordFileRules.ts')) await main();
