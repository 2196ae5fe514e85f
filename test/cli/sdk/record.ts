/**
 * Records what Claude Code sends each Agent SDK program of test/cli/sdk/scenarios.ts, into test/cli/sdk/claudeCode.json: the
 * reference that test/cli/sdk/sequences.process.test.ts holds agentloop to. Claude Code 2.1.197 (the last on Node 20) runs offline
 * against the same local Messages API server. To re-record:
 *
 *   npm ci --prefix bench/peers && npx tsx test/cli/sdk/record.ts ['NAME' ...]      (or CLAUDE_CODE=/path/to/claude)
 *
 * With scenario names, only those are recorded (a new scenario, say); the others keep their recording.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { claudeCodeBinary, claudeCodeEnv, claudeCodeScratch } from '../../support/claudeCode.js';
import { startMessagesServer } from '../../support/messagesServer.js';
import { keysOf, SCENARIOS, sequenceOf, type Scenario } from './scenarios.js';

export interface Recorded {
  sequence: string[];
  keys: Record<string, string[]>;
  /** The model of each Messages API request, in order. */
  models: string[];
  /** The scenario's facts (scenarios.ts), if it has any. */
  facts?: unknown;
}

export const FIXTURE = new URL('./claudeCode.json', import.meta.url);

async function record(scenario: Scenario, executable: string): Promise<Recorded> {
  const server = await startMessagesServer();
  server.enqueue(...scenario.replies);
  const { cwd, home, remove } = claudeCodeScratch('cc-record');
  const env = claudeCodeEnv(home, server.url);
  try {
    const messages = await scenario.program({ executable, env, cwd });
    const requests = server.requests.filter((r) => r.path.startsWith('/v1/messages'));
    const models = requests.map((r) => String(r.body?.model));
    const facts = scenario.facts?.({ requests: requests.map((r) => r.body!), cwd, messages });
    return { sequence: sequenceOf(messages), keys: keysOf(messages), models, ...(facts === undefined ? {} : { facts }) };
  } finally {
    await server.close();
    remove();
  }
}

async function main(): Promise<void> {
  const executable = claudeCodeBinary();
  const names = process.argv.slice(2);
  const kept = names.length && existsSync(FIXTURE) ? (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { scenarios: Record<string, Recorded> }).scenarios : {};
  const scenarios: Record<string, Recorded> = {};
  for (const scenario of SCENARIOS) {
    if (names.length && !names.includes(scenario.name)) {
      if (kept[scenario.name]) scenarios[scenario.name] = kept[scenario.name]!;
      continue;
    }
    scenarios[scenario.name] = await record(scenario, executable);
    process.stdout.write(`${scenario.name}: ${scenarios[scenario.name]!.sequence.join(' ')}\n`);
  }
  const fixture = { recordedWith: { claudeCode: '2.1.197', agentSdk: '0.3.335' }, command: 'CLAUDE_CODE=... npx tsx test/cli/sdk/record.ts', scenarios };
  writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 1)}\n`);
}

if (process.argv[1]?.endsWith('record.ts')) await main();
