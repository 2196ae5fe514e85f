/**
 * Subagents, as Claude Code defines them (the Agent SDK's `agents`, `--agents JSON`, `.claude/agents/*.md`): a named
 * agent the model hands a task to with the `Agent` tool (tools/agent/). The child is the same loop, run by the tool's
 * call with its own history, system prompt, tools and model (run/subagents.ts); its answer is the call's result.
 */
import type { ModelCall } from './model.js';
import type { ExitReason, RunError } from './outcome.js';
import type { Usage } from './usage.js';

/** One agent: Claude Code's fields (`AgentDefinition` of the Agent SDK) that agentloop applies. */
export interface AgentDefinition {
  /** When to use it: what the model reads in the Agent tool's list. */
  description: string;
  /** Its system prompt. */
  prompt: string;
  /** The tools it may use, by Claude Code's names (`Bash`, `Read`, `mcp__s__t`); absent: all the parent's, Agent too. */
  tools?: readonly string[];
  /** Tools taken away from those. */
  disallowedTools?: readonly string[];
  /** A model alias (`sonnet`, `haiku`) or id; `inherit` or absent: the parent's. */
  model?: string;
  /** Its model calls at most (default: the parent's maxTurns). */
  maxTurns?: number;
  /**
   * The library only: this agent's model call instead of the run's (`scriptedModel([...]).call` scripts a child's
   * replies in a test, with no network).
   */
  modelCall?: ModelCall;
}

/** Agents by name (`subagent_type`). */
export type AgentDefinitions = Readonly<Record<string, AgentDefinition>>;

/** One call of the Agent tool, as the child run gets it. */
export interface SubagentCall {
  /** The parent's tool_use id of the call: the child's events and lines name it (`parent_tool_use_id`). */
  toolUseId: string;
  agentType: string;
  /** The call's short description (3-5 words). */
  description: string;
  prompt: string;
  /** The call's model alias, over the agent's. */
  model?: string;
}

/** What a child run gave. */
export interface SubagentResult {
  /** `a` and 16 hex digits, from the call's id: the same call has the same id on resume. */
  agentId: string;
  state: 'done' | 'failed' | 'aborted';
  exitReason: ExitReason | null;
  error?: RunError;
  /** The text of its last reply. */
  text: string;
  /** The model it ran on. */
  model: string;
  usage: Usage;
  /** Tool calls it made. */
  toolUses: number;
  durationMs: number;
  turnCount: number;
}

/** What a run gives its Agent tool's calls: the agents, and how to run one as a child of this run. */
export interface SubagentHost {
  agents: AgentDefinitions;
  run(call: SubagentCall, signal: AbortSignal): Promise<SubagentResult>;
}
