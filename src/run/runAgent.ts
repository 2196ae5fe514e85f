/**
 * `runAgent`: one run of the loop, from a prompt to a final state, with the world plugged in
 * (the model call, the tools, the hooks) and the machine's events handed on as they happen.
 */
import { randomUUID } from 'node:crypto';
import { createActor, toPromise, type ActorOptions, type AnyActorLogic, type InspectionEvent, type Observer } from 'xstate';
import type { RunConfig } from '../core/config.js';
import type { RunEvent } from '../core/events.js';
import type { RunHooks } from '../core/hooks.js';
import type { MessageParam } from '../core/messages.js';
import type { ModelCall } from '../core/model.js';
import type { Redactor } from '../core/redact.js';
import { toolDefinition, type DenyRule, type Tool } from '../core/tool.js';
import { toRunError } from '../core/outcome.js';
import type { AnthropicModelOptions } from '../anthropic/call.js';
import { appendUser, appendUserText, textOf } from '../history/messages.js';
import { historyProblems, InvalidHistoryError } from '../history/validate.js';
import type { AgentMachine } from '../machine/agentMachine.js';
import type { AgentOutput } from '../machine/context.js';
import { credentialRedactor } from '../tools/bash/judge/secrets.js';
import type { RunSpans, RunTracing } from '../otel/runSpans.js';
import type { McpServerState } from '../tools/mcp/servers.js';
import { createAgentMachine } from './actors.js';
import { mcpRedactor, withMcpServers, type McpServerOption } from './mcpRun.js';
import type { StepGate } from './gate.js';
import type { Question } from '../transcript/records.js';
import { checkSessionId } from '../transcript/paths.js';
import type { SessionRecorder } from '../transcript/recorder.js';
import { writeAhead, type WriteAhead } from './writeAhead.js';
import { denyRulesOf, gatedHooks, gateOf, type PermissionsOption } from './permissionHooks.js';
import { configOf, pick } from './pick.js';
import { describedEvents } from './toolStarts.js';
import { listenerOf, openRecorder, runEndOf, startSpans, systemPrompt } from './runParts.js';
import { subagentHost, withAgentTool } from './subagents.js';
import type { AgentDefinitions, SubagentHost } from '../core/agents.js';

/** How to run the agent: the loop's settings (`RunConfig`, each with its default in `defaultRunConfig`) and what is plugged into it. */
export interface RunAgentOptions extends Partial<Omit<RunConfig, 'tools' | 'model'>> {
  /** Model id (e.g. from MODEL_ID). */
  model: string;
  /** The model call; default: the Anthropic API through the SDK, with `client` settings. */
  modelCall?: ModelCall;
  /** Key, token and base URL for the default model call. */
  client?: AnthropicModelOptions;
  /**
   * The tools the model may use. The loop knows no tool of its own: `defaultTools()` (./defaultTools.ts) gives
   * agentloop's bash tool as its commands set it up; none given, the model has none (MCP servers' aside).
   */
  tools: Tool[];
  /** Tools given beside `tools`: e.g. MCP servers' (tools/mcp/), as the CLI gives them. */
  addTools?: Tool[];
  /** Subagents (core/agents.ts): the model gets the `Agent` tool (tools/agent/) to hand one a task, run as a child of this run (./subagents.ts). */
  agents?: AgentDefinitions;
  /**
   * MCP servers whose tools join the run's (`mcp__SERVER__TOOL`), started with the run and stopped when it ends
   * (./mcpRun.ts): Claude Code's and the Agent SDK's shapes (`{ command, args, env }`, `{ type: 'http' | 'sse', url,
   * headers }`, `{ type: 'sdk', instance }` for an in-process `McpServer`).
   */
  mcpServers?: Record<string, McpServerOption>;
  /** For `mcpServers`' stdio servers: start them under bubblewrap, as the bash tool's sandbox runs commands. */
  sandbox?: boolean;
  /** Working directory of the tools; default: `process.cwd()`. */
  cwd?: string;
  /** Added to the system prompt (the default one, or `system`). */
  appendSystemPrompt?: string;
  /**
   * The conversation so far; the prompt is added to it. A history the API would refuse (historyProblems,
   * history/validate.ts) makes runAgent throw an `InvalidHistoryError` before anything is recorded or sent.
   */
  messages?: MessageParam[];
  /** Turn count to go on from when resuming a run (default 1). */
  turnCount?: number;
  /** Aborting it ends the run with a valid history (`exitReason: 'aborted'`). */
  signal?: AbortSignal;
  /** Receives every `RunEvent` (core/events.ts), in order. Must not throw. */
  onEvent?: (event: RunEvent) => void;
  /** Report the API's raw stream events too, as `stream_event` (default false). */
  includeStreamEvents?: boolean;
  /** Gate or change tool calls, or prune what is sent (core/hooks.ts). */
  hooks?: RunHooks;
  /**
   * Claude Code's permissions: a gate (`createPermissionGate`), a `GateRef` (`{ current: gate }`, swapped mid-run by
   * its holder), or the settings (`{ mode, allow, deny, ask, additionalDirectories, asker }`), judging each call after
   * `hooks.beforeToolCall` (./permissionHooks.ts). A denied call never runs; the model gets why. None: every call runs.
   */
  permissions?: PermissionsOption;
  /**
   * Save the run as a session: a store (`{ home }`, e.g. `agentloopHome()`) to start a transcript
   * in, which the run closes (with a `label` for its header: what tells it apart in `sessions`); or a
   * recorder of your own, which stays open (a REPL's, say, or `resumeSession(...).recorder` to go on
   * with a session). A recorder holds its session's lock: a session another run is writing is
   * refused (`SessionBusyError`) before anything is written.
   */
  session?: { home: string; label?: string } | SessionRecorder;
  /** The session id (default: the recorder's, else a new UUID): 1 to 128 letters, digits, `_` and `-`, as the store takes (else runAgent throws before anything runs). */
  sessionId?: string;
  /** Seed of the run's randomness (retry jitter); default: a random one. */
  seed?: number;
  /** Receives the machine's inspection events too, e.g. the Stately inspector's `inspect`. */
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
  /** The loop (default: `agentMachine`); `agentMachine.provide(...)` with other actions or guards, e.g. a mistake of src/mistakes/. */
  machine?: AgentMachine;
  /**
   * Trace the run with OpenTelemetry (GenAI conventions: `invoke_agent`, `chat`, `execute_tool` spans; src/otel/):
   * a tracer, and optionally the parent context and the conventions' shape. The OpenTelemetry code loads only then.
   */
  tracing?: RunTracing;
  /** The timers of the machine's waits (before a retry); default the process's. A durable run journals them (durable/journal.ts). */
  clock?: ActorOptions<AnyActorLogic>['clock'];
  /** Stepping (`--step`): the run waits at this gate before each effect of the chapter's loop: request, reply, tool, append, end (gate.ts). */
  gate?: StepGate;
  /**
   * What is never written (core/redact.ts): cut out of a failed model call's message and of tool results before the
   * machine gets them, and out of every transcript record and span. Default: the client's key and token and the
   * credential values of the environment (tools/bash/judge/secrets.ts), each shown as `[redacted NAME]`.
   */
  redactor?: Redactor;
}

export type FinalState = 'done' | 'failed' | 'aborted';

export interface RunResult {
  sessionId: string;
  state: FinalState;
  context: AgentOutput;
  /** The text of the last assistant message. */
  text: string;
  durationMs: number;
  /** With `mcpServers`: each server's state (`connected`, or `failed` with why: its tools were left out). */
  mcpServers?: McpServerState[];
}

/** The leaf state of a snapshot value, e.g. `callingModel` for `{ turn: 'callingModel' }`. */
export function leafState(value: unknown): string {
  let current = value;
  while (current && typeof current === 'object') current = Object.values(current)[0];
  return String(current);
}

/**
 * Runs the agent on `prompt` (or on the history alone) until the machine reaches a final state.
 * The prompt is text, or the content blocks of a user message (text, images, documents).
 */
export async function runAgent(question: Question | null, options: RunAgentOptions): Promise<RunResult> {
  if (options.sessionId !== undefined) checkSessionId(options.sessionId, 'runAgent'); // with a session to write or without
  if (options.mcpServers !== undefined && Object.keys(options.mcpServers).length > 0) return runWithMcp(question, options);
  const started = Date.now();
  const cwd = options.cwd ?? process.cwd();
  const prompt = question !== null && question.length > 0 ? question : null; // '' asks nothing
  const history = options.messages ?? [];
  const startMessages = prompt === null ? [...history] : typeof prompt === 'string' ? appendUserText(history, prompt) : appendUser(history, prompt);
  if (startMessages[startMessages.length - 1]?.role !== 'user') {
    throw new Error('runAgent needs a prompt, or a history that ends with a user message');
  }
  const problems = historyProblems(startMessages); // what the API would refuse, refused before anything is recorded or sent
  if (problems.length > 0) throw new InvalidHistoryError(problems);
  const tools = withAgentTool([...(options.tools ?? []), ...(options.addTools ?? [])], options.agents);
  const gate = options.permissions ? gateOf(options.permissions, cwd, tools) : undefined; // bad settings throw before anything starts
  const redactor = options.redactor ?? credentialRedactor(process.env, options.client);
  // The prompt is on disk before anything that takes time (a kill from here on loses nothing of it).
  const recorder = openRecorder(options, cwd, prompt, redactor);
  if (prompt) recorder?.prompt(prompt);
  // The SDK is loaded only for a run that uses it (not for a scripted model, nor the demo).
  const modelCall = options.modelCall ?? (await import('../anthropic/call.js')).createAnthropicModel(options.client ?? {});
  const [startedAs, sessionId] = [recorder?.id, options.sessionId ?? recorder?.id ?? randomUUID()];
  const spans = options.tracing ? await startSpans(options, sessionId, redactor, tools) : undefined;
  const ahead = writeAhead(recorder);
  const emit = listenerOf(options.onEvent, recorder, spans, ahead, describedEvents(tools));
  const hooks = gate ? gatedHooks(options.hooks, gate, emit) : options.hooks;
  const subagents = subagentHost({ options, cwd, tools, modelCall, gate, redactor, spans, emit, runAgent }); // the Agent tool's children (./subagents.ts)
  const actor = actorOf(options, { cwd, tools, modelCall, spans, emit, ahead: emit ? ahead : undefined, redactor, startMessages, hooks, denyRules: gate && denyRulesOf(gate.current), subagents });
  if (emit && prompt) {
    const index = startMessages.length - 1;
    emit({ type: 'message', index, message: startMessages[index] as MessageParam, origin: 'prompt' });
  }
  const abort = () => actor.send({ type: 'ABORT' });
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    actor.start();
    if (options.signal?.aborted) abort();
    const context = await toPromise(actor);
    const lastAssistant = context.messages.slice(startMessages.length).reverse().find((m) => m.role === 'assistant');
    const result: RunResult = {
      // A transcript lost during the run goes on in a fork of it: the recorder knows its id.
      sessionId: recorder && sessionId === startedAs ? recorder.id : sessionId,
      state: leafState(actor.getSnapshot().value) as FinalState,
      context,
      text: lastAssistant ? textOf(lastAssistant.content) : '',
      durationMs: Date.now() - started,
    };
    await stepAtTheEnd(options, result);
    recorder?.finish(result);
    spans?.end({ ...runEndOf(context), state: result.state });
    return result;
  } catch (error) {
    spans?.end({ ...runEndOf(actor.getSnapshot().context), state: 'failed', error: toRunError(error) });
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', abort);
    actor.stop();
    if (recorder && recorder !== options.session) recorder.close();
  }
}

/** Stepping: the run is over; its answer goes to the caller once the learner says so (the chapter's ⑧). An abort lets it go. */
async function stepAtTheEnd({ gate, signal }: RunAgentOptions, { state, context, text }: RunResult): Promise<void> {
  if (gate) await gate.wait({ type: 'end', state, exitReason: context.exitReason, text }, signal ?? new AbortController().signal).catch(() => undefined);
}

/** What is plugged into the machine for one run. */
interface Plugged {
  cwd: string;
  tools: Tool[];
  modelCall: ModelCall;
  spans: RunSpans | undefined;
  emit: ((event: RunEvent) => void) | undefined;
  /** The write-ahead of a run that anyone listens to (a recorder, spans, `onEvent`): tools wait for their record. */
  ahead: WriteAhead | undefined;
  redactor: Redactor;
  startMessages: MessageParam[];
  /** The run's hooks, the permission gate's judgement in them. */
  hooks: RunHooks | undefined;
  /** The gate's deny rules with a specifier, for the tools. */
  denyRules: DenyRule[] | undefined;
  subagents: SubagentHost | undefined;
}

/** The machine with the model call, the tools and the hooks plugged in, as an actor (not started) that emits to `emit`. */
function actorOf(options: RunAgentOptions, { cwd, tools, modelCall, spans, emit, ahead, redactor, startMessages, hooks, denyRules, subagents }: Plugged) {
  const machine = createAgentMachine({
    model: spans ? spans.wrapModel(modelCall) : modelCall,
    tools,
    cwd,
    ...(emit ? { onCallEvent: emit } : {}),
    ...(spans ? { toolEnv: (block: { id: string }) => spans.toolEnv(block.id) } : {}),
    ...(ahead ? { writeAhead: ahead.started } : {}),
    ...pick(options, 'includeStreamEvents', 'machine', 'gate'),
    ...(hooks ? { hooks } : {}),
    ...(denyRules?.length ? { denyRules } : {}),
    ...(subagents ? { subagents } : {}),
    redactor,
  });
  const inspect = options.inspect;
  const actor = createActor(machine, {
    input: {
      messages: startMessages,
      ...pick(options, 'turnCount'),
      config: { ...configOf(options), model: options.model, system: systemPrompt(options, cwd), tools: tools.map(toolDefinition) },
      seed: options.seed ?? Math.floor(Math.random() * 2 ** 32),
    },
    ...(inspect ? { inspect: typeof inspect === 'function' ? inspect : (event: InspectionEvent) => inspect.next?.(event) } : {}),
    ...pick(options, 'clock'),
  });
  if (emit) actor.on('*', emit);
  return actor;
}

/** The run with its MCP servers' tools after the others, the servers started for it and stopped after it. */
function runWithMcp(question: Question | null, { mcpServers = {}, ...options }: RunAgentOptions): Promise<RunResult> {
  const settings = { mcpServers, cwd: options.cwd ?? process.cwd(), ...pick(options, 'sandbox', 'signal') };
  const redactor = mcpRedactor(mcpServers, options.redactor, options.client);
  return withMcpServers(settings, (tools) => runAgent(question, { ...options, redactor, addTools: [...(options.addTools ?? []), ...tools] }));
}
