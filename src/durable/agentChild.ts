/**
 * A durable run's subagent as an invocation of its own (children.ts): the virtual object `AgentChild`, keyed by its
 * parent's key and its agent id. Its `run` handler runs the child as run/subagents.ts runs a local one (the agent's
 * system prompt, tools and model, the parent's rules and approvals, a seed from the parent's), with its model calls,
 * tools, permission decisions and timers journalled in its own journal: a worker that dies inside it takes only this
 * invocation down, and Restate retries it on a live worker, which replays the finished steps. Its records are kept in
 * its state while it runs (a reader sees them) and come back with its result; a call it asks about waits in its
 * state's `approvals`, listed under the parent's session (admin.ts).
 */
import * as restate from '@restatedev/restate-sdk';
import type { AgentDefinition } from '../core/agents.js';
import type { Tool } from '../core/tool.js';
import { credentialRedactor } from '../tools/bash/judge/secrets.js';
import { runAgent } from '../run/runAgent.js';
import { agentIdOf, agentSystemPrompt, agentTools } from '../run/subagents.js';
import { agentDefinitions } from '../tools/agent/definitions.js';
import { redactedState, RUN_RETRIES, RUN_TIMEOUTS, type WorkerSettings } from './workerSettings.js';
import { CHILD_SERVICE, childModel, type ChildRequest, type ChildResult } from './children.js';
import { durableRunOptions, requestMaxTurns } from './durableRun.js';
import { openRecords, readRecords } from './records.js';
import type { RunTracing } from '../otel/runSpans.js';
import { durableIds } from './traceIds.js';

/**
 * The child's trace: its `invoke_agent` span, named for its agent, under the parent's Agent call (the trace context
 * its request carries, the same in every attempt: children.ts journals it), else a trace of its own.
 */
async function childTracing(tracing: Omit<RunTracing, 'parent'>, invocationId: string, request: ChildRequest): Promise<RunTracing> {
  const { parentOf } = await import('../otel/traceContext.js');
  const { parent } = await parentOf(request.trace ? [request.trace] : []);
  return { ...tracing, parent, agentName: request.call.agentType, ids: durableIds(invocationId) };
}

/** The `run` handler: the child's run, to its end; its result and records go back to the parent's call. */
async function runChild(settings: WorkerSettings, ctx: restate.ObjectContext, request: ChildRequest): Promise<ChildResult> {
  const { call } = request;
  const agents = agentDefinitions(request.run.agents ?? {}, '"agents"');
  const agent = agents[call.agentType] as AgentDefinition | undefined;
  if (!agent) throw new restate.TerminalError(`no agent "${call.agentType}" in the run's agents`, { errorCode: 400 });
  const clock = { now: await ctx.date.now() };
  const startedAt = clock.now;
  const redactor = settings.redactor ?? credentialRedactor(process.env);
  const model = childModel(call, agents, request.model);
  const records = await openRecords(redactedState(ctx, redactor), { id: request.sessionId, cwd: settings.cwd, model }, clock, false);
  let toolUses = 0;
  const setup = {
    sessionId: request.sessionId,
    model,
    redactor,
    records: {
      ...records,
      onEvent: (event: Parameters<typeof records.onEvent>[0]) => {
        if (event.type === 'tool_start') toolUses += 1;
        records.onEvent(event);
      },
    },
    messages: [],
    turnCount: 1,
    seed: request.seed,
    maxTurns: agent.maxTurns ?? requestMaxTurns(request.run),
    offered: (tools: Tool[]) => agentTools(agent, tools),
    system: agentSystemPrompt(agent, settings.cwd),
    trace: request.trace,
  };
  const options = durableRunOptions(ctx, settings, request.run, setup, clock);
  const tracing = settings.tracing && (await childTracing(settings.tracing, ctx.request().id, request));
  const run = await runAgent(redactor.text(call.prompt), { ...options, ...(tracing ? { tracing } : {}) });
  records.flush();
  const { context } = run;
  // Redacted as the session's result is: the parent's journal and records get it as it is.
  return redactor.value({
    result: {
      agentId: agentIdOf(call.toolUseId),
      state: run.state,
      exitReason: context.exitReason,
      ...(context.error ? { error: context.error } : {}),
      text: run.text,
      model,
      usage: context.usage,
      toolUses,
      // The time between journalled steps, as a session's run counts it: a replay answers the same.
      durationMs: clock.now - startedAt,
      turnCount: context.turnCount,
    },
    records: records.added(),
  });
}

export function agentChild(settings: WorkerSettings) {
  return restate.object({
    name: CHILD_SERVICE,
    handlers: {
      run: restate.handlers.object.exclusive({ retryPolicy: RUN_RETRIES }, (ctx: restate.ObjectContext, request: ChildRequest) => runChild(settings, ctx, request)),
      transcript: restate.handlers.object.shared(async (ctx: restate.ObjectSharedContext) => readRecords(ctx)),
    },
    options: RUN_TIMEOUTS,
  });
}
