/** What `runAgent` takes and gives (./runAgent.ts): its options and its result. */
import type { ActorOptions, AnyActorLogic, InspectionEvent, Observer } from 'xstate';
import type { RunConfig } from '../core/config.js';
import type { RunEvent } from '../core/events.js';
import type { RunHooks } from '../core/hooks.js';
import type { MessageParam } from '../core/messages.js';
import type { ModelCall } from '../core/model.js';
import type { Redactor } from '../core/redact.js';
import type { Tool } from '../core/tool.js';
import type { AnthropicModelOptions } from '../anthropic/call.js';
import type { AgentMachine } from '../machine/agentMachine.js';
import type { AgentOutput } from '../machine/context.js';
import type { RunTracing } from '../otel/runSpans.js';
import type { McpServerState } from '../tools/mcp/servers.js';
import type { McpServerOption } from './mcpRun.js';
import type { StepGate } from './gate.js';
import type { SessionRecorder } from '../transcript/recorder.js';
import type { PermissionsOption } from './permissionHooks.js';
import type { AgentDefinitions } from '../core/agents.js';
import type { CutAgent } from '../transcript/cutAgents.js';

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
  /**
   * A resumed session's subagents its last run cut off (`resumeSession(...).conversation.cutAgents`): before the model
   * is asked, each child goes on where it stopped (./childResume.ts) with its agent of `agents`, and its answer
   * replaces the "interrupted" result its Agent call has in `messages`. One that cannot go on keeps that result.
   */
  cutAgents?: readonly CutAgent[];
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
