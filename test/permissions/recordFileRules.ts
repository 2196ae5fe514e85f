/**
 * Records what Claude Code 2.1.197 does in each case of ./fileRuleCases.ts into ./claudeFileRules.json, the reference
 * fileRules.test.ts holds agentloop to. Claude Code runs as a process offline against the local Messages API server,
 * with a fresh HOME per case. To re-record:
 *
 *   npx tsx test/permissions/recordFileRules.ts
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { claudeCodeEnv, recordCases, runToEnd } from '../support/claudeCode.js';
import { argsOf, CASES, outcomeOf, setUp, stepsFor } from './fileRuleCases.js';

export const FIXTURE = new URL('./claudeFileRules.json', import.meta.url);

async function main(): Promise<void> {
  await recordCases({
    fixture: FIXTURE,
    command: 'CLAUDE_CODE=... npx tsx test/permissions/recordFileRules.ts',
    cases: CASES,
    async record(c, { executable, server }) {
      const { home, dir } = setUp();
      server.enqueue(...stepsFor(c, dir));
      try {
        const { stdout } = await runToEnd(executable, argsOf(c), { cwd: dir, env: claudeCodeEnv(home, server.url) });
        return outcomeOf(c, dir, stdout);
      } finally {
        rmSync(dirname(home), { recursive: true, force: true });
      }
    },
  });
}

if (process.argv[1]?.endsWith('recordFileRules.ts')) await main();
