/**
 * The `initialize` request the Claude Agent SDK sends first (DESIGN.md section 8): what of it agentloop applies (the
 * system prompt, an appended prompt, hook callbacks, in-process MCP servers, the MCP servers to run or connect to
 * under `--await-initialize`: ../setup/sessionMcp.ts), and the answer Claude Code gives
 * (`commands`, `agents`, `output_style`, `available_output_styles`, `models`, `account`, `pid`). Anything else the host
 * asks for in it is refused with an error answer naming it: never ignored in silence.
 */
import { MODEL_ALIASES } from '../../core/models.js';
import { jsonSchema, type JsonSchema } from '../setup/structuredOutput.js';
import type { AgentDefinitions } from '../../core/agents.js';
import { agentDefinitions } from '../../tools/agent/definitions.js';
import { agentsAnswer } from '../setup/agents.js';

/** The hook events whose callbacks agentloop calls (./hooks.ts). */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'PreCompact'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** One matcher of the host's hooks: the tool names it applies to (all when absent) and the callbacks to call. */
export interface HookMatcher {
  matcher?: string;
  callbackIds: string[];
  /** Seconds to wait for a callback's answer (Claude Code's default: 60). */
  timeout?: number;
}

/** An in-process server of the host's: its tools are asked for with `tools/list` (./mcpTools.ts). */
export interface SdkServer {
  name: string;
}

/** What an `initialize` request sets up for the session. */
export interface SdkSetup {
  /** Replaces the system prompt ('' for none: the SDK's default). */
  system?: string;
  appendSystemPrompt?: string;
  hooks: Partial<Record<HookEvent, HookMatcher[]>>;
  servers: SdkServer[];
  /** `mcpServers`: the servers Claude Code runs or connects to (stdio, http, sse), as the program gave them. */
  mcpServers?: Record<string, unknown>;
  /** `outputFormat`'s JSON Schema (also given as --json-schema): structured output (../setup/structuredOutput.ts). */
  jsonSchema?: JsonSchema;
  /** The program's subagents (`agents`), over the session's own (../setup/agents.ts). */
  agents?: AgentDefinitions;
}

/** What of `setup` each turn's run takes: the system prompt (over the flags'), the appended one, the agents. */
export function setupOptions({ system, appendSystemPrompt, agents }: SdkSetup) {
  return { ...(system !== undefined ? { system } : {}), ...(appendSystemPrompt !== undefined ? { appendSystemPrompt } : {}), ...(agents ? { agents } : {}) };
}

// `sdkMcpServerManifests` and `sdkMcpServerConfigs` are taken and not read: each server's tools come from its tools/list.
const KNOWN = new Set(['subtype', 'jsonSchema', 'systemPrompt', 'appendSystemPrompt', 'hooks', 'sdkMcpServers', 'sdkMcpServerManifests', 'sdkMcpServerConfigs', 'mcpServers', 'agents']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a value says nothing (the SDK sends unset options as absent, null, false or empty). */
const isEmpty = (value: unknown) =>
  value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0);

/** The setup an `initialize` request asks for, or the one-line reason it is refused. */
export function readInitialize(request: Record<string, unknown>): SdkSetup | { error: string } {
  const unsupported = Object.keys(request).filter((key) => !KNOWN.has(key) && !isEmpty(request[key]));
  if (unsupported.length > 0) {
    return { error: `agentloop does not support ${unsupported.join(', ')} in initialize` };
  }
  const setup: SdkSetup = { hooks: {}, servers: [] };
  const { systemPrompt, appendSystemPrompt } = request;
  if (Array.isArray(systemPrompt)) setup.system = systemPrompt.filter((part) => typeof part === 'string' && part !== '').join('\n\n');
  else if (typeof systemPrompt === 'string') setup.system = systemPrompt;
  if (typeof appendSystemPrompt === 'string' && appendSystemPrompt !== '') setup.appendSystemPrompt = appendSystemPrompt;
  if (!isEmpty(request.jsonSchema)) {
    try {
      setup.jsonSchema = jsonSchema(request.jsonSchema, 'jsonSchema');
    } catch (error) {
      return { error: (error as Error).message };
    }
  }
  if (!isEmpty(request.agents)) {
    try {
      setup.agents = agentDefinitions(request.agents, 'agents');
    } catch (error) {
      return { error: `initialize: ${(error as Error).message}` };
    }
  }
  if (!isEmpty(request.mcpServers)) {
    if (!isObject(request.mcpServers)) return { error: 'initialize: mcpServers must be an object of servers by name' };
    setup.mcpServers = request.mcpServers;
  }
  const hooks = readHooks(request.hooks);
  if ('error' in hooks) return hooks;
  setup.hooks = hooks.hooks;
  for (const name of Array.isArray(request.sdkMcpServers) ? request.sdkMcpServers : []) {
    if (typeof name === 'string') setup.servers.push({ name });
  }
  return setup;
}

function readHooks(value: unknown): { hooks: SdkSetup['hooks'] } | { error: string } {
  const hooks: SdkSetup['hooks'] = {};
  if (!isObject(value)) return { hooks };
  for (const [event, matchers] of Object.entries(value)) {
    if (!Array.isArray(matchers) || matchers.length === 0) continue;
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      return { error: `agentloop does not support ${event} hooks (it calls ${HOOK_EVENTS.join(', ')})` };
    }
    hooks[event as HookEvent] = matchers.filter(isObject).map((m) => ({
      ...(typeof m.matcher === 'string' ? { matcher: m.matcher } : {}),
      callbackIds: Array.isArray(m.hookCallbackIds) ? m.hookCallbackIds.filter((id): id is string => typeof id === 'string') : [],
      ...(typeof m.timeout === 'number' ? { timeout: m.timeout } : {}),
    }));
  }
  return { hooks };
}

/** The answer to `initialize`, in Claude Code's shape; `agents`: the session's and the request's. */
export function initializeAnswer(model: string, agents?: AgentDefinitions) {
  const models = [
    { value: 'default', displayName: 'Default', description: `The model of this run (${model})` },
    ...Object.entries(MODEL_ALIASES).map(([alias, id]) => ({ value: alias, displayName: alias[0]?.toUpperCase() + alias.slice(1), description: id })),
  ];
  return { commands: [], agents: agentsAnswer(agents), output_style: 'default', available_output_styles: ['default'], models, account: {}, pid: process.pid };
}
