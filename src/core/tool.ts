import type Anthropic from '@anthropic-ai/sdk';

/** JSON Schema of a tool's input, as sent to the model in `tools[].input_schema`. */
export type ToolInputSchema = Anthropic.Tool.InputSchema;

/** What a tool gets besides its input. */
export interface ToolContext {
  /** Aborts when the run is aborted or the turn is discarded; a tool must stop promptly. */
  signal: AbortSignal;
  /** The working directory the tool acts in. */
  cwd: string;
  /**
   * Variables to add to the environment of what the tool runs for this call, e.g. `TRACEPARENT` (the trace of the
   * call, when the run is traced) so that the programs it starts can join the trace.
   */
  env?: Readonly<Record<string, string>>;
}

/** One block of a tool_result's content as the API takes it: text, an image, a document. */
export type ToolResultContent = Exclude<Anthropic.ToolResultBlockParam['content'], string | undefined>[number];

/** What a tool gives back: becomes the `content` and `is_error` of a tool_result block. */
export interface ToolOutput {
  /** The result as text: the tool_result's content, and what the terminal and hooks are shown. */
  content: string;
  isError: boolean;
  /**
   * The tool_result's content instead of `content`, when the result holds more than text (an MCP server's image or
   * PDF), each block as the API takes it; `content` then says the same in text, naming what is not text.
   */
  blocks?: ToolResultContent[];
}

/**
 * A tool the model may call. `run` receives the raw `input` of the tool_use block: it is
 * unvalidated model output, so a tool checks it and answers a bad input with `isError: true`.
 * `defineTool` (tools/define.ts) builds one from a declared input schema and does that check.
 */
export interface Tool {
  name: string;
  description: string;
  inputSchema: ToolInputSchema;
  /**
   * Whether this call may run alongside others and start while the model is still streaming.
   * Decide conservatively: when unsure, answer false. Absent means never safe.
   */
  isConcurrencySafe?(input: unknown): boolean;
  run(input: unknown, context: ToolContext): Promise<ToolOutput>;
  /**
   * Called once a run while its first model call is under way (the request is sent and the model
   * is working): the moment to load what `run` needs, so the first call starts as fast as later
   * ones. Must not throw or block; a tool must work without it being called.
   */
  prepare?(): void;
  /**
   * What a traced run adds to this tool's `execute_tool` span (OpenTelemetry, src/otel/): an MCP tool names the MCP
   * method and its server's own names (tools/mcp/tools.ts).
   */
  spanAttributes?: Readonly<Record<string, string>>;
}

/** The part of a tool that goes into the request body. */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: ToolInputSchema;
}

export function toolDefinition(tool: Tool): ToolDefinition {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
}
