/**
 * Glob's description and input schema as Claude Code 2.1.197 sends them to the model (recorded:
 * test/tools/fileAccess/claudeCode.json), so a model trained on Claude Code's tools gets the same words.
 */
import type { ToolInputSchema } from '../../core/tool.js';

export const DESCRIPTION = "Fast file pattern matching. Supports glob patterns like \"**/*.js\" or \"src/**/*.ts\". Returns matching file paths sorted by modification time.";

export const INPUT_SCHEMA = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "pattern": {
      "description": "The glob pattern to match files against",
      "type": "string"
    },
    "path": {
      "description": "The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter \"undefined\" or \"null\" - simply omit it for the default behavior. Must be a valid directory path if provided.",
      "type": "string"
    }
  },
  "required": [
    "pattern"
  ],
  "additionalProperties": false
} as unknown as ToolInputSchema;
