/**
 * The world plugged into the pure machine: the model call and the tool runner as XState actors.
 * What only the model call sees (the body as sent, text, raw stream events) goes straight to the
 * run's listener from here, without a machine step.
 */
import { fromCallback, fromPromise } from 'xstate';
import type { CallEvent } from '../core/events.js';
import type { RunHooks } from '../core/hooks.js';
import type { MessageParam, ToolResultBlockParam, ToolUseBlock } from '../core/messages.js';
import { ModelError, type ModelCall, type ModelCallInput, type ModelReply, type ModelRequest } from '../core/model.js';
import { noRedaction, type Redactor } from '../core/redact.js';
import { isModelError } from '../core/outcome.js';
import type { DenyRule, Tool, ToolPrepare } from '../core/tool.js';
import type { SubagentHost } from '../core/agents.js';
import { agentMachine, type AgentMachine } from '../machine/agentMachine.js';
import type { AgentEvent, ToolRunnerCommand } from '../machine/events.js';
import { ToolExecutor, type ExecutorListener, type ExecutorOptions } from '../tools/executor.js';
import type { StepGate } from './gate.js';
import { steppedToolRunner } from './steppedTools.js';
import { describingGate } from './toolStarts.js';
import { compactHistory } from './compaction.js';
import type { CompactInput } from '../history/compact.js';
import type { CompactBoundary } from '../core/events.js';
import { shareMachine } from './shareMachine.js';

export interface AgentActorsOptions {
  /** The model: `createAnthropicModel(...)` or `scriptedModel(...).call`. */
  model: ModelCall;
  tools: Tool[];
  /** Working directory handed to every tool. */
  cwd: string;
  /** Concurrency-safe tools run at most this many at once (default 10). */
  maxConcurrency?: number;
  /** Receives what the model call reports (`request`, `text`, `stream_event` when asked for). */
  onCallEvent?: (event: CallEvent) => void;
  /** Report the raw stream events too (`stream_event`). */
  includeStreamEvents?: boolean;
  hooks?: RunHooks;
  /** Called once, when the first model call's request has gone, or its response begun (see `Tool.prepare`). */
  onFirstRequest?: () => void;
  /** Aborted when the run has ended: tools' `prepare` is told, to stop what it started ahead (`Tool.prepare`). */
  runSignal?: AbortSignal;
  /** The machine to plug them into (default `agentMachine`): one with actions of its own, say (src/mistakes/). */
  machine?: AgentMachine;
  /** Variables added to the environment of a tool call (`ToolContext.env`), asked once it has started. */
  toolEnv?: (block: ToolUseBlock) => Readonly<Record<string, string>> | undefined;
  /** Write-ahead: a tool is called once this settles for it, its `tool_start` on record (./writeAhead.ts). */
  writeAhead?: (block: ToolUseBlock) => Promise<void>;
  /** The run's deny rules with a specifier, for the tools (`ToolContext.denyRules`). */
  denyRules?: readonly DenyRule[];
  /** The run's subagents, for its Agent tool (`ToolContext.subagents`: ./subagents.ts). */
  subagents?: SubagentHost;
  /** Stepping (`--step`): awaited before the model request, with the reply, before each tool and before the append (gate.ts). */
  gate?: StepGate;
  /**
   * Cuts the run's secrets out of a failed model call's message (a gateway that echoes the key in a 401 or a 502
   * page) and out of tool results, before the machine gets them: nothing downstream (history, events, result) holds them.
   */
  redactor?: Redactor;
  /** Where the session's transcript is: a compaction's summary message names it (run/compaction.ts). */
  transcriptPath?: string;
}

/** `model` with the message of every error it throws redacted. */
export function redactingModel(model: ModelCall, redactor: Redactor): ModelCall {
  if (!redactor.active) return model;
  return async (input, signal) => {
    try {
      return await model(input, signal);
    } catch (error) {
      throw redactedError(error, redactor);
    }
  };
}

/**
 * A model call's error with its message redacted: a `ModelError` stays one, its details redacted too (the API's error
 * type and the request id come from the answer: a gateway may put anything there).
 */
export function redactedError(error: unknown, redactor: Redactor): unknown {
  if (typeof error === 'string') return redactor.text(error);
  if (!(error instanceof Error)) return error;
  const message = redactor.text(error.message);
  if (isModelError(error)) {
    const details = redactor.value(error.details);
    return message === error.message && details === error.details ? error : new ModelError(error.kind, message, details);
  }
  if (message === error.message) return error;
  const copy = new Error(message);
  copy.name = error.name;
  return copy;
}

/** The model call as an XState actor: aborted when `callingModel` is left. */
export function modelActor(
  model: ModelCall,
  options: Pick<AgentActorsOptions, 'onCallEvent' | 'includeStreamEvents' | 'hooks' | 'onFirstRequest' | 'gate' | 'redactor'> = {},
) {
  const { onCallEvent: report, includeStreamEvents, hooks, gate } = options;
  const redacting = redactingModel(model, options.redactor ?? noRedaction);
  let first = options.onFirstRequest;
  const onFirstRequest = first
    ? () => {
        first?.();
        first = undefined;
      }
    : undefined;
  return fromPromise<ModelReply, ModelCallInput>(async ({ input, signal }) => {
    // XState starts the first state's invoked actors before it delivers that state's emitted
    // events: one microtask keeps `transition` before `request` in the first turn as in the others.
    await undefined;
    let call = input;
    if (hooks?.transformContext) {
      const messages = await hooks.transformContext(input.request.messages, { turnCount: input.turnCount });
      call = { ...call, request: { ...call.request, messages } };
    }
    // Stepping: the machine rests in callingModel until the request may go; it shows what will be sent.
    const shared = call.request.messages;
    await gate?.wait({ type: 'request', turnCount: input.turnCount, body: ownBody(call.request, shared), messageCount: shared.length }, signal);
    if (report) {
      const { turnCount } = input;
      call = {
        ...call,
        onRequest: (body) => report({ type: 'request', turnCount, body: ownBody(body, shared), messageCount: body.messages.length }),
        onText: (delta) => report({ type: 'text', delta }),
        onThinking: (piece) => report({ type: 'thinking', piece }),
        ...(includeStreamEvents
          ? { onStreamEvent: (event: unknown, requestId?: string) => report({ type: 'stream_event', turnCount, event, ...(requestId ? { requestId } : {}) }) }
          : {}),
      };
    }
    if (onFirstRequest && first) call = whileFirstCallGoes(call, onFirstRequest);
    const reply = await redacting(call, signal);
    // Stepping: the reply is in hand; the machine takes it in (messages, the branch, the tools) once the learner says so.
    await gate?.wait({ type: 'reply', turnCount: input.turnCount, stopReason: reply.stopReason, content: reply.content }, signal);
    return reply;
  });
}

/**
 * `call` with `begin` called once its request has gone: just after `onRequest` (in a macrotask of its own, after the
 * request was handed to the client), or at `onResponse` for a model call that reports no request.
 */
function whileFirstCallGoes(call: ModelCallInput, begin: () => void): ModelCallInput {
  const onRequest = call.onRequest;
  return {
    ...call,
    onRequest: (body) => {
      onRequest?.(body);
      // A macrotask of its own; the simulator runs the machine in a browser, which has no setImmediate.
      if (typeof setImmediate === 'function') setImmediate(begin);
      else setTimeout(begin, 0);
    },
    onResponse: begin,
  };
}

/** Compaction (the machine's `compacting` state) as an XState actor: the summary call goes through the run's model call. */
export function compactionActor(model: ModelCall, options: Pick<AgentActorsOptions, 'hooks' | 'redactor' | 'transcriptPath' | 'denyRules'> & Partial<Pick<AgentActorsOptions, 'tools' | 'cwd'>> = {}) {
  const redacting = redactingModel(model, options.redactor ?? noRedaction);
  // The files read are read again by the run's own Read tool (a durable run's is journalled): run/compactFiles.ts.
  const restore = options.tools && options.cwd !== undefined ? { restore: { tools: options.tools, cwd: options.cwd, ...(options.denyRules ? { denyRules: options.denyRules } : {}), ...(options.redactor?.active ? { redact: (text: string) => (options.redactor as Redactor).text(text) } : {}) } } : {};
  const settings = { ...(options.hooks ? { hooks: options.hooks } : {}), ...(options.transcriptPath ? { transcriptPath: options.transcriptPath } : {}), ...restore };
  return fromPromise<CompactBoundary, CompactInput>(({ input, signal }) => compactHistory(input, redacting, signal, settings));
}

/** The executor's settings from the actors' options. */
function runnerSettings(options: Pick<AgentActorsOptions, 'cwd' | 'maxConcurrency' | 'hooks' | 'toolEnv' | 'writeAhead' | 'denyRules' | 'subagents'> & { tools: readonly Tool[] }): ExecutorOptions {
  return {
    cwd: options.cwd,
    // Loaded only when a call names a tool the run does not have: the list of built-in tools loads the bash tool.
    unavailableNote: async (name) => (await import('./defaultTools.js')).unavailableToolNote(options.tools)(name),
    ...(options.maxConcurrency ? { maxConcurrency: options.maxConcurrency } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.toolEnv ? { envOf: options.toolEnv } : {}),
    ...(options.writeAhead ? { writeAhead: options.writeAhead } : {}),
    ...(options.denyRules ? { denyRules: options.denyRules } : {}),
    ...(options.subagents ? { subagents: options.subagents } : {}),
  };
}

/**
 * The tool runner as an XState actor: one for the whole run, with an executor per turn. `CANCEL`
 * (sent when a turn is left before its tools are done) stops that turn's tools; stopping the actor stops them too.
 */
export function toolRunnerActor(
  tools: readonly Tool[],
  cwd: string,
  options: Pick<AgentActorsOptions, 'maxConcurrency' | 'hooks' | 'toolEnv' | 'writeAhead' | 'redactor' | 'denyRules' | 'subagents'> = {},
) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const settings = runnerSettings({ cwd, tools, ...options });
  const redactor = options.redactor ?? noRedaction;
  return fromCallback<ToolRunnerCommand>(({ sendBack, receive }) => {
    const send = (event: AgentEvent) => sendBack(event);
    // The result that completes the set goes out with TOOLS_DONE, in the same step.
    let last: { block: ToolUseBlock; result: ToolResultBlockParam; data?: unknown } | undefined;
    const listener: ExecutorListener = {
      onStart: (block) => send({ type: 'TOOL_STARTED', block }),
      onResult: (output, block, completesAll, data) => {
        const done = { block, result: redactor.value(output), ...(data === undefined ? {} : { data: redactor.value(data) }) };
        if (completesAll) last = done;
        else send({ type: 'TOOL_RESULT', ...done });
      },
      onAllDone: () => {
        const event: AgentEvent = last ? { type: 'TOOLS_DONE', last } : { type: 'TOOLS_DONE' };
        last = undefined;
        // The turn's tools are all done: the next turn gets an executor of its own (no CANCEL comes).
        executor = undefined;
        send(event);
      },
    };
    let executor: ToolExecutor | undefined;
    const current = () => (executor ??= new ToolExecutor(byName, settings, listener));
    receive((command) => {
      if (command.type === 'SUBMIT') current().submit(command.block);
      else if (command.type === 'FINISH') current().finish(command.blocks, command.announced);
      else {
        executor?.cancel();
        executor = undefined;
      }
    });
    return () => executor?.cancel();
  });
}

/** Each tool's `prepare`, once: a tool that throws there is left to fail in `run`, if at all. */
function prepareAll(tools: readonly Tool[], run: ToolPrepare | undefined): () => void {
  return () => {
    for (const tool of tools) {
      try {
        tool.prepare?.(run);
      } catch {
        // only a head start
      }
    }
  };
}

/** The agent machine with a model and tools plugged in; the tools prepare while the model first thinks. */
export function createAgentMachine(options: AgentActorsOptions) {
  const onFirstRequest = options.onFirstRequest ?? prepareAll(options.tools, options.runSignal && { cwd: options.cwd, signal: options.runSignal });
  // Stepping: the page shows each call waiting at the gate as its tool shows it (`$ ls -A`).
  const gate = options.gate && describingGate(options.gate, options.tools);
  const callModel = modelActor(options.model, { ...options, gate, onFirstRequest });
  const machine = options.machine ?? agentMachine;
  const compact = compactionActor(options.model, options);
  if (!gate) return shareMachine(machine, { actors: { callModel, compactHistory: compact, runTools: toolRunnerActor(options.tools, options.cwd, options) } });
  // Stepping: each tool waits at the gate before it starts, so the machine announces none at FINISH (agentMachine.ts).
  return shareMachine(machine, {
    actors: { callModel, compactHistory: compact, runTools: steppedToolRunner(options.tools, runnerSettings(options), gate, options.redactor) },
    guards: { runnerStartsAtFinish: () => false },
  });
}

/**
 * The body a `request` event hands on, which nothing may change after (core/events.ts): a model call that sent the
 * run's shared log itself (the scripted model, a replay; the SDK's sends an array of its own, with the cache
 * breakpoints) gets a copy here, as later turns grow that log.
 */
function ownBody(body: ModelRequest, shared: readonly MessageParam[]): ModelRequest {
  return body.messages === shared ? { ...body, messages: body.messages.slice() } : body;
}
