/**
 * A durable run's subagents, each its own Restate invocation: the Agent tool's call runs its child as a call of
 * `AgentChild/<parent's key>/<agent id>/run` (agentChild.ts), whose model calls and tool calls are journalled in the
 * child's own journal. A worker that dies inside a child loses nothing: Restate retries that invocation alone, which
 * replays its finished steps; the parent's journal holds the call and, once there, its result.
 *
 * Several Agent calls of one reply run in parallel: the first that runs starts, besides its own child, the children of
 * every later Agent call of the reply the permission gate allows (the gate's decision is journalled once and read again
 * when that call's turn comes: permissions.ts). The parent then awaits each child in the reply's order, one at a time,
 * so its journal holds the same entries in the same order on every replay, whichever child ended first.
 *
 * The call's output is journalled when it is made (it says how long the call took by the attempt's clock: a replay
 * reads the same). The child's records come back with its result and land in the parent's records, wrapped as a local child's are
 * (`agent_start`, `agent`, `agent_end`). A cancel of the parent cancels its children (the SDK cancels the calls in
 * flight of a cancelled invocation); the parent's run then ends aborted.
 */
import * as restate from '@restatedev/restate-sdk';
import type { AgentDefinitions, SubagentCall, SubagentResult } from '../core/agents.js';
import type { ModelReply } from '../core/model.js';
import type { ToolUseBlock } from '../core/messages.js';
import type { Tool } from '../core/tool.js';
import { zeroUsage } from '../core/usage.js';
import type { PermissionGate } from '../permissions/gate.js';
import { resolveModel } from '../core/models.js';
import { agentIdOf, childSeed } from '../run/subagents.js';
import { AGENT_TOOL_NAME, createAgentTool } from '../tools/agent/agentTool.js';
import { inputProblem, type JsonSchema } from '../tools/schema.js';
import type { SessionRecord } from '../transcript/records.js';
import type { DurableRecorder } from './records.js';
import type { Journal } from './steps.js';
import type { TraceCarrier } from '../otel/traceContext.js';
import { CHILD_SERVICE, type RunRequest } from './protocol.js';
import { childTrace } from './traceIds.js';

export { CHILD_SERVICE };


/** The body of `AgentChild/<key>/run`. */
export interface ChildRequest {
  /** The session whose run started it (its tools are the session's; its records land there). */
  sessionId: string;
  call: SubagentCall;
  /** The session's run request: the child has its agents, limits and rules. */
  run: RunRequest;
  /** The parent's model: the child's when neither the call nor the agent names one. */
  model: string;
  seed: number;
  /** The trace context the child's run hangs under: its Agent call's `execute_tool` span (traceIds.ts), journalled in the parent. */
  trace?: TraceCarrier;
}

/** What `AgentChild/<key>/run` answers: how the child ended, and its records (each stamped with its own journal's time). */
export interface ChildResult {
  result: SubagentResult;
  records: SessionRecord[];
}

/** The model of a child: the call's alias, else its agent's, else (absent or `inherit`) its parent's. */
export function childModel(call: SubagentCall, agents: AgentDefinitions, parentModel: string): string {
  const wanted = call.model ?? agents[call.agentType]?.model;
  return wanted === undefined || wanted === 'inherit' ? parentModel : resolveModel(wanted);
}

interface Parent {
  agents: AgentDefinitions;
  parent: Omit<ChildRequest, 'call' | 'trace'>;
  /** The trace context the run came with: its children's when the run does not trace itself. */
  trace: TraceCarrier | undefined;
  /** The run's gate (its decisions journalled once: permissions.ts), absent when every call runs. */
  gate: PermissionGate | undefined;
  /** The run's latest reply: its Agent calls are started together. */
  lastReply: () => ModelReply | undefined;
  records: DurableRecorder;
  /** The parent's journal: the call's output is a step of it. */
  journal: Journal;
  /** Called when the parent's invocation is cancelled while it awaits a child: the run ends aborted. */
  cancelled: () => void;
}

/** A child that ended without a result of its own: cancelled with its parent, or its invocation failed for good. */
function endedWithout(agentId: string, model: string, error: unknown): SubagentResult {
  const cancelled = error instanceof restate.CancelledError;
  const message = error instanceof Error ? error.message : String(error);
  return {
    agentId,
    state: cancelled ? 'aborted' : 'failed',
    exitReason: cancelled ? 'aborted' : 'tool_runner_error',
    ...(cancelled ? {} : { error: { kind: 'unknown', message, retryable: false } }),
    text: '',
    model,
    usage: zeroUsage(),
    toolUses: 0,
    durationMs: 0,
    turnCount: 0,
  };
}

/** The Agent tool's call of `block` as its child gets it, or undefined when the call would not start one. */
function callOf(block: ToolUseBlock, agents: AgentDefinitions, schema: JsonSchema): SubagentCall | undefined {
  if (inputProblem(schema, block.input) !== undefined) return undefined;
  const { description, prompt, subagent_type: agentType, model } = block.input as { description: string; prompt: string; subagent_type?: string; model?: string };
  if (agentType === undefined || !Object.hasOwn(agents, agentType)) return undefined;
  return { toolUseId: block.id, agentType, description, prompt, ...(model ? { model } : {}) };
}

/**
 * The Agent tool of a durable run: it validates and answers as the local one does (tools/agent/agentTool.ts), its
 * children running as invocations of their own. Not concurrency-safe: the parent runs its calls one at a time.
 */
export function durableAgentTool(ctx: restate.ObjectContext, run: Parent): Tool {
  const agent = createAgentTool(run.agents);
  const started = new Map<string, restate.InvocationPromise<ChildResult>>();
  // The Agent call that runs: its span's trace context (ToolContext.env) names the trace its children join.
  let running: { id: string; env?: Readonly<Record<string, string>> | undefined } = { id: '' };
  const launch = async (call: SubagentCall) => {
    // Journalled: a span's id differs in each attempt, and the call's request must be the same in every replay.
    const trace = await run.journal.run(`trace of ${call.toolUseId}`, async () => childTrace(ctx.request().id, call.toolUseId, running, run.trace) ?? null);
    const request: ChildRequest = { ...run.parent, call, seed: childSeed(run.parent.seed, call.toolUseId), ...(trace ? { trace } : {}) };
    const key = `${ctx.key}/${agentIdOf(call.toolUseId)}`;
    started.set(call.toolUseId, ctx.genericCall<ChildRequest, ChildResult>({ service: CHILD_SERVICE, method: 'run', key, parameter: request, inputSerde: restate.serde.json, outputSerde: restate.serde.json }));
  };
  // This call's child, and those of the later Agent calls of the same reply that the gate allows, started now.
  const launchFrom = async (call: SubagentCall, signal: AbortSignal) => {
    if (!started.has(call.toolUseId)) await launch(call);
    const blocks = (run.lastReply()?.content ?? []).filter((b): b is ToolUseBlock => b.type === 'tool_use' && b.name === AGENT_TOOL_NAME);
    const later = blocks.slice(blocks.findIndex((b) => b.id === call.toolUseId) + 1);
    for (const block of later) {
      const next = callOf(block, run.agents, agent.inputSchema as JsonSchema);
      if (!next || started.has(block.id)) continue;
      const decision = run.gate ? await run.gate.decide({ block, tool: agent, signal }) : { behavior: 'allow' };
      if (decision.behavior === 'allow') await launch(next);
    }
  };
  const host = {
    agents: run.agents,
    async run(call: SubagentCall, signal: AbortSignal): Promise<SubagentResult> {
      const agentId = agentIdOf(call.toolUseId);
      const model = childModel(call, run.agents, run.parent.model);
      const named = { toolUseId: call.toolUseId, agentId, agentType: call.agentType };
      run.records.onEvent({ type: 'agent_start', ...named, description: call.description, prompt: call.prompt, model });
      await launchFrom(call, signal);
      let ended: ChildResult;
      try {
        ended = await (started.get(call.toolUseId) as restate.InvocationPromise<ChildResult>);
      } catch (error) {
        if (error instanceof restate.CancelledError) run.cancelled();
        ended = { result: endedWithout(agentId, model, error), records: [] };
      }
      const { result } = ended;
      run.records.agentRecords(call.toolUseId, agentId, ended.records);
      run.records.onEvent({ type: 'agent_end', ...named, state: result.state, exitReason: result.exitReason, text: result.text, usage: result.usage, toolUses: result.toolUses, durationMs: result.durationMs });
      return result;
    },
  };
  return {
    ...agent,
    isConcurrencySafe: () => false,
    async run(input, context) {
      running = { id: context.toolUseId ?? '', env: context.env };
      const output = await agent.run(input, { ...context, subagents: host });
      // Journalled: the output says how long the call took by this attempt's clock, and a replay must read the same.
      return run.journal.run(`tool ${AGENT_TOOL_NAME} ends`, async () => output);
    },
  };
}
