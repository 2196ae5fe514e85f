/**
 * An MCP server's tools as tools of the loop: named `mcp__SERVER__TOOL` (Claude Code's names: every character but
 * letters, digits, `_` and `-` becomes `_`), with the server's description and input schema; a tool annotated
 * `readOnlyHint` is concurrency-safe (it may start while the reply streams and run beside others), any other runs
 * alone. A call's result becomes the tool_result: its text (images and PDFs as the API's blocks), `isError` as `is_error`,
 * cut to `MAX_MCP_OUTPUT_TOKENS` as Claude Code cuts it (./outputCap.ts). A call that fails (the server
 * crashed, closed, timed out past `MCP_TOOL_TIMEOUT`, or answered what is not a result) is an `is_error` result that
 * says so: the run goes on. In a traced run, a call carries its `execute_tool` span's W3C trace context to the server
 * in `params._meta` (`traceparent`, `tracestate`: the MCP conventions of OpenTelemetry), and the span names the MCP
 * method and the server's own names.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Tool, ToolInputSchema, ToolOutput } from '../../core/tool.js';
import { toolResultText } from '../../core/messages.js';
import { resultBlock, type McpBlock } from './content.js';
import { capMcpOutput, DEFAULT_MAX_MCP_OUTPUT_TOKENS } from './outputCap.js';

/** Claude Code's normalisation of a server's or a tool's name inside `mcp__SERVER__TOOL`. */
export function mcpNamePart(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

export function mcpToolName(server: string, tool: string): string {
  return `mcp__${mcpNamePart(server)}__${mcpNamePart(tool)}`;
}

export interface McpToolSettings {
  /** The server's name as configured. */
  server: string;
  /** A call's bound in ms (`MCP_TOOL_TIMEOUT`). */
  timeoutMs: number;
  /** The bound of what a call gives the model, in tokens (`MAX_MCP_OUTPUT_TOKENS`; default 25,000): ./outputCap.ts. */
  maxOutputTokens?: number;
}

/** The loop's tool for one tool of a connected server. */
export function loopTool(client: Client, tool: McpTool, settings: McpToolSettings): Tool {
  const readOnly = tool.annotations?.readOnlyHint === true;
  return {
    name: mcpToolName(settings.server, tool.name),
    description: tool.description ?? tool.annotations?.title ?? tool.name,
    inputSchema: tool.inputSchema as ToolInputSchema,
    isConcurrencySafe: () => readOnly,
    spanAttributes: mcpSpanAttributes(settings.server, tool.name),
    run: async (input, { signal, env }) => {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        return { isError: true, content: `Invalid input for ${tool.name}: expected an object.` };
      }
      // A signal of this call's own: the SDK leaves its abort listener on the signal it is given, and the run's may
      // serve many calls (past ten, Node warns of a leak on stderr).
      const call = new AbortController();
      const abort = () => call.abort(signal.reason);
      signal.addEventListener('abort', abort, { once: true });
      if (signal.aborted) abort();
      try {
        const params = { name: tool.name, arguments: input as Record<string, unknown>, ...traceMeta(env) };
        const result = await client.callTool(params, undefined, {
          signal: call.signal,
          timeout: settings.timeoutMs,
        });
        return capMcpOutput(outputOf(result), settings.maxOutputTokens ?? DEFAULT_MAX_MCP_OUTPUT_TOKENS);
      } catch (error) {
        return { isError: true, content: `MCP server ${settings.server}: tool ${tool.name} failed: ${messageOf(error)}` };
      } finally {
        signal.removeEventListener('abort', abort);
      }
    },
  };
}

/** What an MCP tool adds to its `execute_tool` span: the MCP method, the server's and the tool's own names. */
export function mcpSpanAttributes(server: string, tool: string): Record<string, string> {
  return { 'mcp.method.name': 'tools/call', 'agentloop.mcp.server': server, 'agentloop.mcp.tool': tool };
}

/** The call's trace context (its `TRACEPARENT`, when the run is traced) as `params._meta`, unprefixed as SEP-414 says. */
export function traceMeta(env: Readonly<Record<string, string>> | undefined): { _meta?: Record<string, string> } {
  if (!env?.TRACEPARENT) return {};
  return { _meta: { traceparent: env.TRACEPARENT, ...(env.TRACESTATE ? { tracestate: env.TRACESTATE } : {}) } };
}

type CallResult = Awaited<ReturnType<Client['callTool']>>;

/**
 * A call's result as the tool_result's content: its text blocks joined by new lines (none: the structured content as
 * JSON); with an image or a PDF, also the blocks in order, each as the API takes it (./content.ts), which the
 * tool_result then carries.
 */
export function outputOf(result: CallResult): ToolOutput {
  const isError = result.isError === true;
  const blocks = (Array.isArray(result.content) ? (result.content as McpBlock[]) : []).map(resultBlock).filter((b) => b !== undefined);
  if (blocks.some((b) => b.type !== 'text')) return { isError, content: toolResultText(blocks), blocks };
  const parts = blocks.map((b) => (b.type === 'text' ? b.text : ''));
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  if (parts.length === 0 && 'toolResult' in result) parts.push(JSON.stringify(result.toolResult));
  const content = parts.join('\n');
  // The API refuses an empty text: an empty result says it is one.
  return { isError, content: content.trim() === '' ? (isError ? 'The tool failed and said nothing.' : '(no content)') : content };
}

/**
 * An error as one line. A result the MCP SDK's schema refused (a ZodError, whose message is its issues as indented JSON,
 * a union's thousands of characters) says where and what: `not a valid result: content: expected array, received string`.
 */
export function messageOf(error: unknown): string {
  const issues = (error as { issues?: unknown } | undefined)?.issues;
  if (error instanceof Error && Array.isArray(issues)) return `not a valid result: ${issues.slice(0, 3).map(issueText).join('; ')}`;
  return error instanceof Error ? error.message : String(error);
}

interface Issue {
  path?: (string | number)[];
  message?: string;
  errors?: Issue[][];
}

/** `path: message`, for a union the first of its alternatives' issues (the first alternative is the likeliest). */
function issueText(issue: Issue): string {
  const deeper = issue.errors?.[0]?.[0];
  const path = issue.path ?? [];
  const text = deeper ? issueText({ ...deeper, path: [...path, ...(deeper.path ?? [])] }) : `${path.length ? `${path.join('.')}: ` : ''}${(issue.message ?? 'invalid').replace(/^Invalid input: /, '')}`;
  return text.replace(/\s+/g, ' ');
}
