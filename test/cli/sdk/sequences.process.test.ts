/**
 * Each Agent SDK program of test/cli/sdk/scenarios.ts, run by the real SDK with agentloop's built CLI as its engine,
 * receives the message sequence Claude Code 2.1.197 sent the same program against the same scripted Messages API
 * (recorded in test/cli/sdk/claudeCode.json by test/cli/sdk/record.ts: data, not agentloop's output), and the same model
 * is asked for in each request; and each line a program receives has the keys Claude Code's line of that kind had
 * (a script reading them finds them), but for those agentloop cannot honestly give (KEYS_NOT_GIVEN).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI } from '../../support/cli.js';
import type { MessagesServer } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';
import type { Recorded } from './record.js';
import { keysOf, SCENARIOS, sequenceOf } from './scenarios.js';

const claudeCode = JSON.parse(readFileSync(new URL('./claudeCode.json', import.meta.url), 'utf8')) as { scenarios: Record<string, Recorded> };

/** Claude Code's keys that agentloop does not give, and why. */
const KEYS_NOT_GIVEN: Record<string, string[]> = {
  'system/init': ['claude_code_version'], // agentloop is not Claude Code: it says agentloop_version
  assistant: ['tool_use_meta'], // Claude Code's MCP tool metadata
  stream_event: ['ttft_ms'], // the result has it
};

/** For each kind of line both received: the keys Claude Code's had and agentloop's lack. */
function missingKeys(ours: Record<string, string[]>, reference: Record<string, string[]>): Record<string, string[]> {
  const missing: Record<string, string[]> = {};
  for (const [kind, keys] of Object.entries(reference)) {
    const lacking = keys.filter((key) => !(ours[kind] ?? []).includes(key) && !(KEYS_NOT_GIVEN[kind] ?? []).includes(key));
    if (lacking.length > 0) missing[kind] = lacking;
  }
  return missing;
}

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('sequences', (p) => { project = p; server = p.server; }, { noViolations: true });

describe("an Agent SDK program receives Claude Code's message sequence from agentloop", () => {
  for (const scenario of SCENARIOS) {
    it(scenario.name, async () => {
      const reference = claudeCode.scenarios[scenario.name];
      expect(reference, 'recorded').toBeDefined();
      delete project.env.MODEL_ID; // the program's model (or none) is the one asked for
      server.enqueue(...scenario.replies);
      const messages = await scenario.program({ executable: CLI, env: project.env, cwd: project.dir });
      expect(sequenceOf(messages)).toEqual(reference!.sequence);
      expect(missingKeys(keysOf(messages), reference!.keys)).toEqual({});
      expect(server.requests.map((r) => String(r.body?.model))).toEqual(reference!.models);
      if (scenario.facts) {
        expect(reference!.facts, 'facts recorded').toBeDefined();
        expect(scenario.facts({ requests: server.requests.map((r) => r.body!), cwd: project.dir, messages })).toEqual(reference!.facts);
      }
    });
  }
});
