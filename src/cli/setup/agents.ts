/**
 * A CLI session's subagents, as Claude Code gathers them: the agent files of the scopes `--setting-sources` reads
 * (user, project: tools/agent/files.ts; none with `--bare`), then `--agents JSON` over them; an Agent SDK program's
 * `agents` come with its initialize request (control/initialize.ts), over these. A file left out is said once on
 * stderr. The Agent tool is offered when there are agents and `--tools` leaves it in (it names `Agent` or `default`,
 * or is not given).
 */
import type { AgentDefinitions } from '../../core/agents.js';
export type { AgentDefinitions };
import { readAgentFiles } from '../../tools/agent/files.js';
import { agentsOfJson } from '../commandLine/agentsJson.js';
export { agentsOfJson };

/** The flags that give a session its agents (CliOptions' own: ../commandLine/args.ts, not imported here, which imports this file through claudeFlags.ts). */
type AgentFlags = { agents?: string | undefined; settingSources?: readonly string[] | undefined; bare?: boolean | undefined; tools?: readonly string[] | undefined };
type ToolFlags = Pick<AgentFlags, 'tools'>;

const gathered = new WeakMap<object, AgentDefinitions>();

/** The session's agents from its files and flags (once per options object: the files are read and said once). */
export function cliAgents(options: AgentFlags, cwd: string, env: NodeJS.ProcessEnv = process.env, warn = (line: string) => void process.stderr.write(`${line}\n`)): AgentDefinitions {
  const known = gathered.get(options);
  if (known) return known;
  const files = options.bare ? { agents: {}, problems: [] } : readAgentFiles(cwd, options.settingSources ?? ['user', 'project', 'local'], env);
  for (const problem of files.problems) warn(`agentloop: agent file ${problem}`);
  const agents = { ...files.agents, ...(options.agents !== undefined ? agentsOfJson(options.agents) : {}) };
  gathered.set(options, agents);
  return agents;
}

/** Whether `--tools` leaves the Agent tool in. */
export function offersAgentTool(options: ToolFlags): boolean {
  return options.tools === undefined || options.tools.some((name) => name === 'Agent' || name.toLowerCase() === 'default');
}

/** The agents a run offers: the session's and an initialize request's (over them), none when `--tools` leaves Agent out. */
export function offeredAgents(options: ToolFlags, ...sets: (AgentDefinitions | undefined)[]): AgentDefinitions | undefined {
  const agents = Object.assign({}, ...sets) as AgentDefinitions;
  return offersAgentTool(options) && Object.keys(agents).length > 0 ? agents : undefined;
}

/** The `agents` of Claude Code's initialize answer: each agent's name, description and model. */
export function agentsAnswer(agents: AgentDefinitions | undefined): { name: string; description: string; model?: string }[] {
  return Object.entries(agents ?? {}).map(([name, agent]) => ({ name, description: agent.description, ...(agent.model ? { model: agent.model } : {}) }));
}

/** The agents a session offers from its files and flags. */
export function sessionAgents(options: AgentFlags, cwd: string): AgentDefinitions | undefined {
  return offeredAgents(options, cliAgents(options, cwd));
}

/** `conversation` with an initialize request's agents over its own (the Agent tool left out by `--tools` stays out). */
export function withAgents<C extends { options: ToolFlags; agents?: AgentDefinitions }>(conversation: C, agents: AgentDefinitions | undefined): C {
  const offered = agents ? offeredAgents(conversation.options, conversation.agents, agents) : undefined;
  return offered ? { ...conversation, agents: offered } : conversation;
}
