/**
 * Records the permission questions Claude Code 2.1.197 asks in each case of ./suggestionCases.ts (its `can_use_tool`
 * control requests' `permission_suggestions`) into ./claudeSuggestions.json, the reference suggestions.process.test.ts holds
 * agentloop to. Claude Code runs as a process offline against the local Messages API server, with a fresh HOME per
 * case. To re-record:
 *
 *   npx tsx test/permissions/recordSuggestions.ts
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { claudeCodeBinary, claudeCodeEnv, claudeCodeVersion } from '../support/claudeCode.js';
import { startMessagesServer } from '../support/messagesServer.js';
import { ARGS, askedQuestions, CASES, setUp, stepsFor, type Question, type SuggestionCase } from './suggestionCases.js';

export const FIXTURE = new URL('./claudeSuggestions.json', import.meta.url);

async function record(c: SuggestionCase, executable: string): Promise<Question[]> {
  const server = await startMessagesServer();
  const f = setUp();
  server.enqueue(...stepsFor(c, f));
  try {
    return await askedQuestions(executable, ARGS, f, claudeCodeEnv(f.home, server.url));
  } finally {
    await server.close();
    rmSync(dirname(f.home), { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const executable = claudeCodeBinary();
  const version = claudeCodeVersion(executable);
  const cases: Record<string, Question[]> = {};
  for (const c of CASES) {
    cases[c.name] = await record(c, executable);
    process.stdout.write(`${c.name}: ${JSON.stringify(cases[c.name])}\n`);
  }
  const fixture = { recordedWith: version, command: 'CLAUDE_CODE=... npx tsx test/permissions/recordSuggestions.ts', cases };
  writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
}

if (process.argv[1]?.endsWith('recordSuggestions.ts')) await main();
