/**
 * `--agents JSON`'s value checked where the command line is parsed (claudeFlags.ts, durable.ts's submit): its own file,
 * so the option table loads the definitions' check alone, not the agent files' reader of ../setup/agents.ts (the quick answers'
 * bound: test/cli/startup.process.test.ts).
 */
import type { AgentDefinitions } from '../../core/agents.js';
import { agentDefinitions } from '../../tools/agent/definitions.js';
import { UsageError } from './argValues.js';

/** `--agents JSON`'s agents; a bad one is a usage error naming what is wrong. */
export function agentsOfJson(text: string, flag = '--agents'): AgentDefinitions {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${flag} takes a JSON object of agents, not ${JSON.stringify(text.slice(0, 40))}`);
  }
  try {
    return agentDefinitions(value, flag);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
