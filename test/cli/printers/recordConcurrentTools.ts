/**
 * Records what Claude Code 2.1.197 writes for one reply with several concurrency-safe calls (./concurrentTools.ts: Read,
 * Glob, Grep, driven by an Agent SDK program whose PreToolUse hook holds each call until the one that must end before it
 * has) into ./claudeConcurrentTools.json: the lines the program receives (stream-json) and the tool_result order of the
 * request after the reply. Claude Code runs as a process offline against the local Messages API server, with a fresh
 * HOME. concurrentTools.process.test.ts holds agentloop's CLI to it. To re-record:
 *
 *   CLAUDE_CODE=/work/main/bench/peers/node_modules/@anthropic-ai/claude-code/bin/claude.exe npx tsx test/cli/printers/recordConcurrentTools.ts
 */
import { claudeCodeEnv, claudeCodeScratch, recordCases } from '../../support/claudeCode.js';
import { CASES, runCase } from './concurrentTools.js';

export const FIXTURE = new URL('./claudeConcurrentTools.json', import.meta.url);

async function main(): Promise<void> {
  await recordCases({
    fixture: FIXTURE,
    command: 'CLAUDE_CODE=... npx tsx test/cli/printers/recordConcurrentTools.ts',
    cases: CASES,
    async record(c, { executable, server }) {
      const { cwd, home, remove } = claudeCodeScratch('cc-concurrent');
      try {
        return await runCase(executable, claudeCodeEnv(home, server.url), cwd, server, c);
      } finally {
        remove();
      }
    },
  });
}

if (process.argv[1]?.endsWith('recordConcurrentTools.ts')) await main();
