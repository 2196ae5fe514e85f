/**
 * Each Agent SDK program of test/sdk/scenarios.ts, run by the real SDK with agentloop's built CLI as its engine,
 * receives the message sequence Claude Code 2.1.197 sent the same program against the same scripted Messages API
 * (recorded in test/sdk/claudeCode.json by test/sdk/record.ts: data, not agentloop's output), and the same model
 * is asked for in each request.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';
import type { Recorded } from './record.js';
import { SCENARIOS, sequenceOf } from './scenarios.js';

const claudeCode = JSON.parse(readFileSync(new URL('./claudeCode.json', import.meta.url), 'utf8')) as { scenarios: Record<string, Recorded> };

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
      expect(server.requests.map((r) => String(r.body?.model))).toEqual(reference!.models);
    });
  }
});
