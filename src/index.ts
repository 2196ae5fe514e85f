/**
 * agentloop: an agent harness whose loop is an explicit XState v5 state machine.
 *
 * - `runAgent(prompt, options)` runs the loop to the end and returns the final context.
 * - `agentMachine` is the pure machine; `createAgentMachine({ model, tools, cwd })` plugs in a
 *   model call and tools, ready for `createActor`.
 * - `scriptedModel([...])` is a model that plays a list of replies, for tests and demos.
 * - `defineTool({ name, description, input, run })` declares a tool in a few lines, its input any Standard Schema
 *   (zod 4, ArkType, Valibot, ...) or agentloop's own `s.object({...})`.
 * - `RunHooks` gate or change tool calls and prune the context (`runAgent({ hooks })`).
 * - `createPermissionGate({ mode, allow, deny, ask, asker })`: Claude Code's permissions (`runAgent({ permissions })`).
 */
export { agentMachine, CONTINUE_AFTER_MAX_TOKENS, type AgentMachine } from './machine/agentMachine.js';
export { buildRequest, type AgentContext, type AgentInput } from './machine/context.js';
export { defaultRunConfig, type RunConfig } from './core/config.js';
export type { ThinkingDisplay, ThinkingSetting } from './core/thinking.js';
export { type ExitReason, type RunError, type TransitionReason } from './core/outcome.js';
export type { AgentEvent, ToolRunnerCommand } from './machine/events.js';
export { createAgentMachine, modelActor, toolRunnerActor, type AgentActorsOptions } from './run/actors.js';
export { defaultSystemPrompt } from './core/prompts.js';
export { runAgent, type FinalState, type RunAgentOptions, type RunResult } from './run/runAgent.js';
export { compactConversation, type CompactConversationOptions } from './run/compactConversation.js';
export type { Question } from './transcript/records.js';
export type { CallEvent, ChoiceState, CompactBoundary, CompactTrigger, GateEvent, LoopState, MachineEvent, MessageOrigin, RunEvent, RunEventType, SubagentEvent } from './core/events.js';
export type { AgentDefinition, AgentDefinitions, SubagentCall, SubagentHost, SubagentResult } from './core/agents.js';
export { createAgentTool } from './tools/agent/agentTool.js';
export {
  createPermissionGate,
  PermissionError,
  type GateDecision,
  type PermissionAnswer,
  type PermissionAsker,
  type PermissionGate,
  type PermissionQuestion,
  type PermissionSettings,
  type SourcedRule,
} from './permissions/gate.js';
export { PERMISSION_MODES, type PermissionMode } from './permissions/modes.js';
export type { GateRef, PermissionsOption } from './run/permissionHooks.js';
export type { RunHooks, ToolCallDecision, ToolCallInfo } from './core/hooks.js';
export { costOf, priceOf, PRICES, type ModelPrice } from './core/pricing.js';
export { createRedactor, noRedaction, type Redactor, type SecretValue } from './core/redact.js';
export * as prompts from './core/prompts.js';
export { continuationAfter, retryDelayMs, seededRandom } from './machine/rules.js';
export { defineTool, type InputOf, type ToolDeclaration, type ToolInput } from './tools/define.js';
export { inputProblem, s, type Infer, type JsonSchema, type Schema } from './tools/schema.js';
export { startSession, reopenSession, type SessionRecorder } from './transcript/recorder.js';
export { resumeSession, SessionNotResumableError, type LockOptions, type ResumedSession } from './transcript/open.js';
export { describeHolder, SessionBusyError, type LockHolder } from './transcript/lock.js';
export { UnsafeSessionFileError } from './transcript/sessionFile.js';
export { agentloopHome, findSession, newestSessionFor, SessionExistsError } from './transcript/store.js';
export { createAnthropicModel, type AnthropicModelOptions } from './anthropic/call.js';
export { createClient, MessagesClient, type MessagesApi } from './anthropic/client.js';
export { toModelError } from './anthropic/errors.js';
export { reply, scriptedModel, type ScriptedModel, type ScriptedReply, type ScriptStep } from './scripted/model.js';
export { ConfigError, loadModelSettings, requireModelSettings, type ModelSettings } from './anthropic/settings.js';
export { ModelError, type ModelCall, type ModelCallInput, type ModelReply, type ModelRequest } from './core/model.js';
export { type ContentBlock, type MessageParam } from './core/messages.js';
export { type Usage } from './core/usage.js';
export { createBashTool, type BashToolOptions, type CommandRun, type CommandRunner, type RunEnding } from './tools/bash/bashTool.js';
export { createFileTools, FileState, type FileToolName, type FileToolsOptions } from './tools/fileAccess/fileTools.js';
export { BUILT_IN_TOOLS, chapterTools, defaultTools, type BuiltInTool, type DefaultToolsOptions } from './run/defaultTools.js';
export { loadMcpConfigs, mcpServerConfig, parseMcpConfig, McpConfigError, type McpServerConfig, type McpServerConfigInput } from './tools/mcp/config.js';
export { startMcpServers, type McpSdkServer, type McpServers, type McpServerSpec, type McpServerState, type McpServersOptions, type McpTransport } from './tools/mcp/servers.js';
export type { McpServerOption } from './run/mcpRun.js';
export { ToolExecutor } from './tools/executor.js';
export { publicToolName, toolCallLine, toolDefinition, toolLookup, type Tool, type ToolContext, type ToolDisplay, type ToolLookup, type ToolOutput, type ToolPermission } from './core/tool.js';
export { assertValidHistory, historyProblems, InvalidHistoryError } from './history/validate.js';
export { appendUserText, textOf } from './history/messages.js';
export { machineDiagramSvg, machineGraph, machineLayout, machineSvg, type MachineGraph, type MachineLayout } from './diagram/index.js';
export { listTransitions } from './diagram/transitions.js';
export type { RunTracing } from './otel/runSpans.js';
export { conventionsFromEnv, type GenAiConventions } from './otel/conventions.js';
export { answerApproval, approveCall, denyCall, listApprovals, type RestateTarget, type WaitingApproval } from './durable/approvalsClient.js';
export type { ApprovalAnswer, WaitingCall } from './durable/protocol.js';
