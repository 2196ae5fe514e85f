/**
 * Records the permission questions Claude Code 2.1.197 asks in each case of ./suggestionCases.ts (its `can_use_tool`
 * control requests' `permission_suggestions`) into ./claudeSuggestions.json, the reference suggestions.process.test.ts holds
 * agentloop to. Claude Code runs as a process offline against the local Messages API server, with a fresh HOME per
 * case. To re-record:
 *
 *   npx tsx test/permissions/recordSuggestions.ts
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { claudeCodeEnv, recordCases } from '../support/claudeCode.js';
import { ARGS, askedQuestions, CASES, setUp, stepsFor } from './suggestionCases.js';

export const FIXTURE = new URL('./claudeSuggestions.json', import.meta.url);

async function main(): Promise<void> {
  await recordCases({
    fixture: FIXTURE,
    command: 'CLAUDE_CODE=... npx tsx test/permissions/recordSuggestions.ts',
    cases: CASES,
    async record(c, { executable, server }) {
      const f = setUp();
      server.enqueue(...stepsFor(c, f));
      try {
        return await askedQuestions(executable, ARGS, f, claudeCodeEnv(f.home, server.url));
      } finally {
        rmSync(dirname(f.home), { recursive: true, force: true });
      }
    },
  });
}

if (process.argv[1]?.endsWith('recordSuggestions.ts')) await main();
