/**
 * The options of a durable run, a session's (agentSession.ts) or a subagent's (agentChild.ts): the same runAgent as
 * the CLI's, its model call, tools, permission decisions and timers journalled in the invocation that runs it
 * (journal.ts, permissions.ts), its Agent tool's children each an invocation of their own (children.ts).
 */
import * as restate from '@restatedev/restate-sdk';
import type { MessageParam } from '../core/messages.js';
import type { ModelCall, ModelReply } from '../core/model.js';
import type { Redactor } from '../core/redact.js';
import type { Tool } from '../core/tool.js';
import { defaultRunConfig } from '../core/config.js';
import { redactingModel } from '../run/actors.js';
import type { RunAgentOptions } from '../run/runAgent.js';
import { agentDefinitions } from '../tools/agent/definitions.js';
import { AGENT_TOOL_NAME, createAgentTool } from '../tools/agent/agentTool.js';
import { durableSteps, journalledModel, journalledTools, journalTimers, type JournalClock } from './journal.js';
import type { Journal } from './steps.js';
import type { DurableRecorder } from './records.js';
import { askDurably } from './approvals.js';
import { durableGate, runPermissions } from './permissions.js';
import { durableAgentTool } from './children.js';
import type { RunRequest } from './protocol.js';
import type { TraceCarrier } from '../otel/traceContext.js';
import type { WorkerSettings } from './workerSettings.js';

export function journalOf(ctx: restate.ObjectContext): Journal {
  return { id: ctx.request().id, run: (name, action) => ctx.run(name, action), sleep: (ms) => ctx.sleep(ms) };
}

/** The journal, a step that finds the invocation cancelled aborting `cancel` (the step still throws). */
function cancelling(journal: Journal, cancel: AbortController): Journal {
  const watch = <T>(step: PromiseLike<T>): Promise<T> =>
    Promise.resolve(step).catch((error: unknown) => {
      if (error instanceof restate.CancelledError) cancel.abort();
      throw error;
    });
  return { id: journal.id, run: (name, action) => watch(journal.run(name, action)), sleep: (ms) => watch(journal.sleep(ms)) };
}

/** What differs between a session's run and a subagent's. */
export interface RunSetup {
  /** The session the run belongs to: its tools are the session's, its children's records land in it. */
  sessionId: string;
  model: string;
  redactor: Redactor;
  records: DurableRecorder;
  messages: MessageParam[];
  turnCount: number;
  seed: number;
  /** Its model calls at most, counted from `turnCount`. */
  maxTurns: number;
  /** The tools it is offered of the session's (the Agent tool among them when the request has agents): all, or an agent's. */
  offered(tools: Tool[]): Tool[];
  /** Its system prompt (a subagent's); default: the CLI's. */
  system?: string;
  /** The trace context the run came with (traceIds.ts): its children's when the run does not trace itself. */
  trace?: TraceCarrier | undefined;
}

/** The session's tools, and the Agent tool of `agents` after them (a stray Agent tool of the worker's is dropped). */
function sessionTools(settings: WorkerSettings, sessionId: string, agents: ReturnType<typeof agentDefinitions> | undefined): Tool[] {
  const tools = (typeof settings.tools === 'function' ? settings.tools(sessionId) : settings.tools).filter((tool) => tool.name !== AGENT_TOOL_NAME);
  return agents && Object.keys(agents).length > 0 ? [...tools, createAgentTool(agents)] : tools;
}

/** The run's runAgent options, everything that decides what the machine does journalled in `ctx`'s invocation. */
export function durableRunOptions(ctx: restate.ObjectContext, settings: WorkerSettings, request: RunRequest, setup: RunSetup, clock: JournalClock): RunAgentOptions {
  const { redactor, turnCount } = setup;
  // A cancel of the invocation (Restate's, which the SDK passes on to the children in flight) ends the run aborted.
  const cancel = new AbortController();
  const journal = cancelling(journalOf(ctx), cancel);
  const steps = durableSteps(journal, clock);
  const permissions = runPermissions(request, settings.permissions);
  const agents = request.agents ? agentDefinitions(request.agents, '"agents"') : undefined;
  const ask = { redactor, ...(permissions?.timeoutMs !== undefined ? { timeoutMs: permissions.timeoutMs } : {}) };
  const gate = permissions && durableGate(journal, permissions, settings.cwd, (question) => askDurably(ctx, question, ask));
  // The latest reply: the Agent tool starts the children of all its Agent calls at once (children.ts).
  let lastReply: ModelReply | undefined;
  const model = journalledModel(steps, redactingModel(settings.modelCall, redactor), redactor);
  const modelCall: ModelCall = async (input, signal) => (lastReply = await model(input, signal));
  const offered = setup.offered(sessionTools(settings, setup.sessionId, agents));
  const tools = offered.map((tool) => {
    if (tool.name !== AGENT_TOOL_NAME || !agents) return tool;
    const parent = { sessionId: setup.sessionId, run: request, model: setup.model, seed: setup.seed };
    return durableAgentTool(ctx, { agents, parent, trace: setup.trace, gate, lastReply: () => lastReply, records: setup.records, journal, cancelled: () => cancel.abort() });
  });
  return {
    ...(gate ? { permissions: gate } : {}),
    model: setup.model,
    modelCall,
    // The Agent tool stays out of the wrapper: its calls are calls of other invocations, journalled as such.
    tools: [...journalledTools(steps, tools.filter((tool) => tool.name !== AGENT_TOOL_NAME), redactor), ...tools.filter((tool) => tool.name === AGENT_TOOL_NAME)],
    ...(setup.system !== undefined ? { system: setup.system } : {}),
    clock: journalTimers(journal),
    cwd: settings.cwd,
    messages: setup.messages,
    turnCount,
    seed: setup.seed,
    signal: cancel.signal,
    redactor,
    onEvent: setup.records.onEvent,
    // --max-turns counts the model calls of this run: a session's later runs start further on.
    maxTurns: setup.maxTurns + turnCount - 1,
    ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
    ...(request.maxRetries !== undefined ? { maxRetries: request.maxRetries } : {}),
  };
}

/** The run's --max-turns (the request's, else the default). */
export function requestMaxTurns(request: RunRequest): number {
  return request.maxTurns ?? defaultRunConfig.maxTurns;
}
