/**
 * The `Agent` tool, as Claude Code 2.1.197 offers it: the model hands a task to one of the run's agents
 * (core/agents.ts); the call runs that agent as a child of the run (`ToolContext.subagents`: run/subagents.ts) and
 * answers with the child's last text, its id and usage (./text.ts). Calls run in parallel, as Claude Code runs
 * several in one reply; each child's own calls are judged by the run's permission gate, so the call itself asks
 * nothing.
 */
import type { AgentDefinitions, SubagentResult } from '../../core/agents.js';
import type { Tool, ToolContext, ToolOutput } from '../../core/tool.js';
import { MODEL_ALIASES } from '../../core/models.js';
import { inputProblem, type JsonSchema } from '../schema.js';
import { agentIdText, agentToolDescription, unknownAgentText } from './text.js';

export const AGENT_TOOL_NAME = 'Agent';

/** Claude Code's input schema, less what agentloop does not do (`run_in_background`, `isolation`). */
const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    description: { description: 'A short (3-5 word) description of the task', type: 'string' },
    prompt: { description: 'The task for the agent to perform', type: 'string' },
    subagent_type: { description: 'The type of specialized agent to use for this task', type: 'string' },
    model: {
      description: "Optional model override for this agent. Takes precedence over the agent definition's model. If omitted, uses the agent definition's model, or inherits from the parent.",
      type: 'string',
      enum: Object.keys(MODEL_ALIASES),
    },
  },
  required: ['description', 'prompt'],
  additionalProperties: false,
} as const;

interface AgentInput {
  description: string;
  prompt: string;
  subagent_type?: string;
  model?: string;
}

const failed = (content: string): ToolOutput => ({ isError: true, content: `<tool_use_error>${content}</tool_use_error>` });

/** The Agent tool of a run whose agents are `agents` (its description lists them). */
export function createAgentTool(agents: AgentDefinitions): Tool {
  return {
    name: AGENT_TOOL_NAME,
    description: agentToolDescription(agents),
    inputSchema: INPUT_SCHEMA as unknown as Tool['inputSchema'],
    isConcurrencySafe: () => true,
    // The call only starts a child: each of the child's calls is judged by the gate as the run's own are.
    isReadOnly: () => true,
    display: { call: (input) => `${String((input as AgentInput).subagent_type ?? 'Agent')}(${String((input as AgentInput).description ?? '')})` },
    run: (input, context) => runAgentCall(input, context),
  };
}

async function runAgentCall(input: unknown, context: ToolContext): Promise<ToolOutput> {
  const problem = inputProblem(INPUT_SCHEMA as unknown as JsonSchema, input);
  if (problem) return failed(`InputValidationError: ${problem}`);
  const { description, prompt, subagent_type: agentType, model } = input as AgentInput;
  const host = context.subagents;
  if (!host || context.toolUseId === undefined) return failed('Error: this run has no agents');
  if (agentType === undefined || !Object.hasOwn(host.agents, agentType)) return failed(unknownAgentText(agentType ?? 'general-purpose', host.agents));
  const started = Date.now();
  const result = await host.run({ toolUseId: context.toolUseId, agentType, description, prompt, ...(model ? { model } : {}) }, context.signal);
  return outputOf(result, { prompt, agentType, durationMs: Date.now() - started });
}

/** The call's result: the child's text and a line with its id and usage; `data` is Claude Code's `tool_use_result`. */
export function outputOf(result: SubagentResult, call: { prompt: string; agentType: string; durationMs: number }): ToolOutput {
  const totalTokens = result.usage.input_tokens + result.usage.output_tokens + result.usage.cache_read_input_tokens + result.usage.cache_creation_input_tokens;
  if (result.state !== 'done') {
    const why = result.state === 'aborted' ? 'interrupted' : (result.error?.message ?? result.exitReason ?? 'failed');
    return { isError: true, content: `Agent ${call.agentType} (${result.agentId}) did not finish: ${why}` };
  }
  const text = result.text === '' ? '(the agent gave no text)' : result.text;
  const usageLine = agentIdText(result.agentId, { totalTokens, toolUses: result.toolUses, durationMs: call.durationMs });
  const content = [{ type: 'text' as const, text }];
  return {
    isError: false,
    content: `${text}\n${usageLine}`,
    blocks: [...content, { type: 'text', text: usageLine }],
    data: {
      status: 'completed',
      prompt: call.prompt,
      agentId: result.agentId,
      agentType: call.agentType,
      content,
      resolvedModel: result.model,
      totalDurationMs: call.durationMs,
      totalTokens,
      totalToolUseCount: result.toolUses,
      usage: result.usage,
    },
  };
}
