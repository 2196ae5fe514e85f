/**
 * A run's subagents (core/agents.ts): the host its Agent tool's calls run a child through. The child is the same
 * loop, started by runAgent as a run of its own: its own history and turn count, the agent's system prompt, tools
 * and model, the parent's hooks, permission gate, redactor, clock and signal (aborting the parent aborts it). Its
 * events reach the parent's listeners wrapped (`agent_start`, `agent_event`, `agent_end`), so the transcript, the
 * CLI's lines and the viewer see the child as it runs; a traced child's `invoke_agent` span is the child of the
 * call's `execute_tool`.
 */
import { createHash } from 'node:crypto';
import type { AgentDefinition, AgentDefinitions, SubagentCall, SubagentHost, SubagentResult } from '../core/agents.js';
import type { RunEvent } from '../core/events.js';
import { resolveModel } from '../core/models.js';
import { publicToolName, type Tool } from '../core/tool.js';
import type { RunSpans } from '../otel/runSpans.js';
import { AGENT_TOOL_NAME, createAgentTool } from '../tools/agent/agentTool.js';
import type { PermissionGate } from '../permissions/gate.js';
import type { GateRef } from './permissionHooks.js';
import type { Redactor } from '../core/redact.js';
import type { ModelCall } from '../core/model.js';
import type { RunAgentOptions, RunResult } from './runOptions.js';
import type { MessageParam } from '../core/messages.js';
import { addUsage, type Usage } from '../core/usage.js';
import type { CutAgent } from '../transcript/cutAgents.js';
import { pick } from './pick.js';

/** `tools` with the Agent tool of `agents` after them, when there are agents and no tool has its name yet. */
export function withAgentTool(tools: Tool[], agents: AgentDefinitions | undefined): Tool[] {
  if (!agents || Object.keys(agents).length === 0 || tools.some((tool) => tool.name === AGENT_TOOL_NAME)) return tools;
  return [...tools, createAgentTool(agents)];
}

/** The id of the child a call starts: `a` and 16 hex digits of the call's id (the same call, the same id, on resume). */
export function agentIdOf(toolUseId: string): string {
  return `a${createHash('sha256').update(toolUseId).digest('hex').slice(0, 16)}`;
}

/** A child's seed (its retry jitter), from its parent's and the call's id: a durable run's comes from Restate's random source, so its children's do too. */
export function childSeed(parentSeed: number, toolUseId: string): number {
  return createHash('sha256').update(`${parentSeed}:${toolUseId}`).digest().readUInt32BE(0);
}

/** The tools an agent may use of its parent's: those it names (all when it names none), less those it refuses. */
export function agentTools(agent: AgentDefinition, parentTools: readonly Tool[]): Tool[] {
  const named = (tool: Tool, names: readonly string[]) => names.includes(publicToolName(tool)) || names.includes(tool.name);
  return parentTools.filter((tool) => (agent.tools === undefined || named(tool, agent.tools)) && !named(tool, agent.disallowedTools ?? []));
}

/** The child's system prompt: the agent's, then where it works. */
export function agentSystemPrompt(agent: AgentDefinition, cwd: string): string {
  return `${agent.prompt}\n\nNotes:\n- In your final response, share what the task asked for: your answer is returned to the agent that called you, not shown to the user.\n\nWorking directory: ${cwd}`;
}

/** What the parent's run plugs into its children. */
export interface ParentRun {
  options: RunAgentOptions;
  cwd: string;
  /** The parent's tools, its Agent tool among them. */
  tools: readonly Tool[];
  modelCall: ModelCall;
  /** The parent's gate (its reference: a mode set mid-run holds for the child too). */
  gate: PermissionGate | GateRef | undefined;
  redactor: Redactor;
  spans: RunSpans | undefined;
  emit: ((event: RunEvent) => void) | undefined;
  /** runAgent itself (passed in: this file is imported by it). */
  runAgent: (prompt: string | null, options: RunAgentOptions) => Promise<RunResult>;
}

/** Where a child taken up after a resume goes on from (./childResume.ts). */
export interface ChildResume {
  /** Its history, restored from its records, and the turn it goes on at. */
  messages: MessageParam[];
  turnCount: number;
  /** Its own children its run cut off. */
  cutAgents: readonly CutAgent[];
  /** The model it ran on (its start record's). */
  model: string;
  /** Its tool calls and usage before the cut, which its result counts too. */
  toolUses: number;
  usage: Usage;
}

/** A run's subagents: the Agent tool's host, and a child taken up again after a resume (./childResume.ts). */
export interface RunSubagents extends SubagentHost {
  resume(call: SubagentCall, from: ChildResume, signal: AbortSignal): Promise<SubagentResult>;
}

/** The host of a run whose options name `agents`; undefined without. */
export function subagentHost(parent: ParentRun): RunSubagents | undefined {
  const agents = parent.options.agents;
  if (!agents || Object.keys(agents).length === 0) return undefined;
  return { agents, run: (call, signal) => runChild(parent, agents, call, signal), resume: (call, from, signal) => runChild(parent, agents, call, signal, from) };
}

/** The model a call's child runs on: the call's, else the agent's, else (`inherit`) the parent's. */
function childModel(parent: ParentRun, agent: AgentDefinition, call: SubagentCall): string {
  const wanted = call.model ?? agent.model;
  return wanted === undefined || wanted === 'inherit' ? parent.options.model : resolveModel(wanted);
}

/** Runs the child of `call` from its prompt, or (`from`) goes on with it from where a resumed session's records left it. */
async function runChild(parent: ParentRun, agents: AgentDefinitions, call: SubagentCall, signal: AbortSignal, from?: ChildResume): Promise<SubagentResult> {
  const agent = agents[call.agentType] as AgentDefinition;
  const { options, emit } = parent;
  const agentId = agentIdOf(call.toolUseId);
  const model = from?.model ?? childModel(parent, agent, call);
  const tools = agentTools(agent, parent.tools);
  const nests = tools.some((tool) => tool.name === AGENT_TOOL_NAME);
  const named = { toolUseId: call.toolUseId, agentId, agentType: call.agentType };
  let toolUses = from?.toolUses ?? 0;
  const started = Date.now();
  if (!from) emit?.({ type: 'agent_start', ...named, description: call.description, prompt: call.prompt, model });
  const parentContext = parent.spans?.toolContext(call.toolUseId);
  const run = await parent.runAgent(from ? null : call.prompt, {
    ...pick(options, 'maxTokens', 'maxTurns', 'maxRetries', 'retryBaseMs', 'retryMaxMs', 'maxTokensContinuations', 'client', 'hooks', 'clock', 'includeStreamEvents'),
    ...(agent.maxTurns !== undefined ? { maxTurns: agent.maxTurns } : {}),
    ...(from ? { messages: from.messages, turnCount: from.turnCount, cutAgents: from.cutAgents } : {}),
    model,
    modelCall: agent.modelCall ?? parent.modelCall,
    tools,
    ...(nests ? { agents } : {}),
    ...(options.seed !== undefined ? { seed: childSeed(options.seed, call.toolUseId) } : {}),
    cwd: parent.cwd,
    system: agentSystemPrompt(agent, parent.cwd),
    ...(parent.gate ? { permissions: parent.gate } : {}),
    redactor: parent.redactor,
    signal,
    onEvent: (event) => {
      if (event.type === 'tool_start') toolUses += 1;
      emit?.({ type: 'agent_event', ...named, event });
    },
    ...(options.tracing && parentContext ? { tracing: { ...options.tracing, parent: parentContext, agentName: call.agentType } } : {}),
  });
  const { context } = run;
  const usage = from ? addUsage(from.usage, context.usage) : context.usage;
  const result: SubagentResult = {
    agentId,
    state: run.state,
    exitReason: context.exitReason,
    ...(context.error ? { error: context.error } : {}),
    text: run.text,
    model,
    usage,
    toolUses,
    durationMs: Date.now() - started,
    turnCount: context.turnCount,
  };
  emit?.({ type: 'agent_end', ...named, state: run.state, exitReason: context.exitReason, text: run.text, usage, toolUses, durationMs: result.durationMs });
  return result;
}
