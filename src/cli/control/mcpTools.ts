/**
 * The tools of the host's in-process MCP servers (the SDK's `createSdkMcpServer`): the SDK lists them in `initialize`
 * (`sdkMcpServerManifests`), and each call travels as an `mcp_message` control request carrying the JSON-RPC
 * `tools/call`, answered with `{ mcp_response }`. The model sees each as `mcp__SERVER__TOOL`, as Claude Code names
 * MCP tools; a result becomes the tool_result as a `--mcp-config` server's does (tools/mcp/tools.ts), and a traced
 * run's call carries its span's trace context in `params._meta` as theirs do.
 */
import type { Tool, ToolInputSchema } from '../../core/tool.js';
import { mcpSpanAttributes, mcpToolName, outputOf, traceMeta } from '../../tools/mcp/tools.js';
import type { ControlChannel } from './channel.js';
import type { SdkServer } from './initialize.js';

/** A tool as MCP's `tools/list` describes it. */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

let nextId = 1;

/** Sends one JSON-RPC request to the server `server` through the host; its `result`, or throws with its error. */
async function rpc(channel: ControlChannel, server: string, method: string, params: unknown, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const message = { jsonrpc: '2.0', id: nextId++, method, params };
  const answer = await channel.ask('mcp_message', { server_name: server, message }, signal);
  const response = answer.mcp_response;
  if (!isObject(response)) throw new Error(`the host's answer to ${method} holds no mcp_response`);
  if (isObject(response.error)) throw new Error(`${server}: ${String(response.error.message ?? JSON.stringify(response.error))}`);
  return isObject(response.result) ? response.result : {};
}

function mcpTool(channel: ControlChannel, server: string, info: McpToolInfo): Tool {
  const schema = (isObject(info.inputSchema) ? info.inputSchema : { type: 'object', properties: {} }) as ToolInputSchema;
  const { $schema: _ignored, ...inputSchema } = schema as ToolInputSchema & { $schema?: unknown };
  return {
    name: mcpToolName(server, info.name),
    description: info.description ?? `${info.name} (MCP server ${server})`,
    inputSchema: inputSchema as ToolInputSchema,
    isConcurrencySafe: () => info.annotations?.readOnlyHint === true,
    spanAttributes: mcpSpanAttributes(server, info.name),
    async run(input, context) {
      try {
        // As a --mcp-config server's result (tools/mcp/tools.ts): images and other media named, not poured out as text.
        return outputOf((await rpc(channel, server, 'tools/call', { name: info.name, arguments: input ?? {}, ...traceMeta(context.env) }, context.signal)) as Parameters<typeof outputOf>[0]);
      } catch (error) {
        return { content: `MCP tool ${info.name} of ${server} failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
      }
    },
  };
}

/** The tools of every in-process server, asking a server with `tools/list` when the SDK did not list its tools. */
export async function sdkServerTools(channel: ControlChannel, servers: SdkServer[]): Promise<Tool[]> {
  const tools: Tool[] = [];
  for (const server of servers) {
    const listed = server.tools ?? ((await rpc(channel, server.name, 'tools/list', {})).tools as McpToolInfo[] | undefined) ?? [];
    for (const info of listed) tools.push(mcpTool(channel, server.name, info));
  }
  return tools;
}
