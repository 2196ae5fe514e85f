/**
 * agentloop: an agent harness whose loop is an explicit XState v5 state machine.
 *
 * - `runAgent(prompt, options)` runs the loop to the end and returns the final context.
 * - `agentMachine` is the pure machine; `createAgentMachine({ model, tools, cwd })` plugs in a
 *   model call and tools, ready for `createActor`.
 * - `scriptedModel([...])` is a model that plays a list of replies, for tests and demos.
 */
export { agentMachine, CONTINUE_AFTER_MAX_TOKENS, type AgentMachine } from './machine/agentMachine.js';
export {
  buildRequest,
  defaultRunConfig,
  type AgentContext,
  type AgentInput,
  type ExitReason,
  type RunConfig,
  type RunError,
  type TransitionReason,
} from './machine/context.js';
export type { AgentEvent, ToolRunnerCommand } from './machine/events.js';
export { createAgentMachine, modelActor, toolRunnerActor, type AgentActorsOptions } from './session/actors.js';
export {
  defaultSystemPrompt,
  runAgent,
  type FinalState,
  type RunAgentOptions,
  type RunEvent,
  type RunResult,
} from './session/run.js';
export { createAnthropicModel, createClient, type AnthropicModelOptions } from './model/anthropic.js';
export { toModelError } from './model/errors.js';
export { reply, scriptedModel, type ScriptedModel, type ScriptedReply, type ScriptStep } from './model/fake.js';
export { ConfigError, loadModelSettings, requireModelSettings, type ModelSettings } from './model/config.js';
export {
  ModelError,
  type ContentBlock,
  type MessageParam,
  type ModelCall,
  type ModelCallInput,
  type ModelReply,
  type ModelRequest,
  type Usage,
} from './model/types.js';
export { createBashTool, type BashToolOptions } from './tools/bash.js';
export { ToolExecutor } from './tools/executor.js';
export { toolDefinition, type Tool, type ToolContext, type ToolOutput } from './tools/types.js';
export { assertValidHistory, historyProblems, InvalidHistoryError } from './history/validate.js';
export { appendUserText, textOf } from './history/messages.js';
export { machineDiagramSvg, machineGraph, machineLayout, machineSvg, type MachineGraph, type MachineLayout } from './diagram/index.js';
export { listTransitions } from './diagram/transitions.js';
