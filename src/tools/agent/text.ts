/**
 * What the Agent tool says, as Claude Code 2.1.197 says it (recorded against the local Messages API: test/sdk): its
 * description, with the agents listed in it (Claude Code lists them in a `system` message of the conversation, a role
 * agentloop does not send), and its result: the child's text, then its id and usage.
 */
import type { AgentDefinitions } from '../../core/agents.js';

const INTRO = `Launch a new agent to handle complex, multi-step tasks. Each agent type has specific capabilities and tools available to it.`;

const WHEN = `When using the Agent tool, specify a subagent_type parameter to select which agent type to use.

## When to use

Reach for this when the task matches an available agent type, when you have independent work to run in parallel, or when answering would mean reading across several files — delegate it and you keep the conclusion, not the file dumps. For a single-fact lookup where you already know the file, symbol, or value, search directly. Once you've delegated a search, don't also run it yourself — wait for the result.

- The agent's final message is returned to you as the tool result; it is not shown to the user — relay what matters.
- A new Agent call starts fresh: the agent knows only its prompt.

When you launch multiple agents for independent work, send them in a single message with multiple tool uses so they run concurrently.`;

/** One line of the list: `- reviewer: Reviews a file (Tools: Bash, Read)`, as Claude Code lists an agent. */
export function agentLine(name: string, agent: { description: string; tools?: readonly string[] | undefined }): string {
  return `- ${name}: ${agent.description} (Tools: ${agent.tools === undefined ? '*' : agent.tools.join(', ')})`;
}

/** The tool's description: Claude Code's, the agents listed in it. */
export function agentToolDescription(agents: AgentDefinitions): string {
  const lines = Object.entries(agents).map(([name, agent]) => agentLine(name, agent));
  return `${INTRO}\n\nAvailable agent types for the Agent tool:\n${lines.join('\n')}\n\n${WHEN}`;
}

/** The usage block after the child's text, as Claude Code writes it (without its SendMessage hint: agentloop has no SendMessage tool). */
export function agentIdText(agentId: string, usage: { totalTokens: number; toolUses: number; durationMs: number }): string {
  return `agentId: ${agentId}\n<usage>subagent_tokens: ${usage.totalTokens}\ntool_uses: ${usage.toolUses}\nduration_ms: ${usage.durationMs}</usage>`;
}

/** Claude Code's answer to a subagent_type that names no agent. */
export function unknownAgentText(name: string, agents: AgentDefinitions): string {
  return `Agent type '${name}' not found. Available agents: ${Object.keys(agents).join(', ')}`;
}
