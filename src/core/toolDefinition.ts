/** A tool as the Messages API is told of it (a request's `tools`): what the model call needs of the tool contract (./tool.ts). */
import type Anthropic from '@anthropic-ai/sdk';

/** JSON Schema of a tool's input, as sent to the model in `tools[].input_schema`. */
export type ToolInputSchema = Anthropic.Tool.InputSchema;

export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: ToolInputSchema;
}
