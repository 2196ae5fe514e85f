/**
 * Records what Claude Code 2.1.197 does in each case of ./settingsCases.ts into ./claudeSettings.json, the reference
 * settingsRules.test.ts holds agentloop to. Claude Code runs as a process offline against the local Messages API
 * server, with a fresh HOME per case (as root: the IS_SANDBOX cases say so). To re-record:
 *
 *   npx tsx test/permissions/recordSettings.ts
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { claudeCodeEnv, recordCases, runToEnd } from '../support/claudeCode.js';
import { argsOf, CASES, firstLine, outcomeOf, setUp, stepsFor } from './settingsCases.js';

export const FIXTURE = new URL('./claudeSettings.json', import.meta.url);

async function main(): Promise<void> {
  await recordCases({
    fixture: FIXTURE,
    command: 'CLAUDE_CODE=... npx tsx test/permissions/recordSettings.ts',
    cases: CASES,
    extra: { asRoot: process.getuid?.() === 0 },
    async record(c, { executable, server }) {
      server.enqueue(...stepsFor(c));
      const { home, dir, flagArgs } = setUp(c);
      try {
        const run = await runToEnd(executable, argsOf(c, flagArgs), { cwd: dir, env: claudeCodeEnv(home, server.url, c.env) });
        return { ...outcomeOf(c, dir, run.stdout, run.code), stderr: firstLine(run.stderr, home, dir) };
      } finally {
        rmSync(dirname(home), { recursive: true, force: true });
      }
    },
  });
}

if (process.argv[1]?.endsWith('recordSettings.ts')) await main();
