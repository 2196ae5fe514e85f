/**
 * Write's description and input schema as Claude Code 2.1.197 sends them to the model (recorded:
 * test/tools/fileAccess/claudeCode.json), so a model trained on Claude Code's tools gets the same words.
 */
import type { ToolInputSchema } from '../../core/tool.js';

export const DESCRIPTION = "Writes a file to the local filesystem, overwriting if one exists.\n\nWhen to use: creating a new file, or fully replacing one you've already Read. Overwriting an existing file you haven't Read will fail. For partial changes, use Edit instead.";

export const INPUT_SCHEMA = {
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "file_path": {
      "description": "The absolute path to the file to write (must be absolute, not relative)",
      "type": "string"
    },
    "content": {
      "description": "The content to write to the file",
      "type": "string"
    }
  },
  "required": [
    "file_path",
    "content"
  ],
  "additionalProperties": false
} as unknown as ToolInputSchema;
