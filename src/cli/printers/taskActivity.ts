/**
 * What Claude Code 2.1.197 says a subagent is doing in its `system/task_progress` line (`description`), for the last
 * tool_use of a reply (recorded: test/cli/sdk/claudeCode.json, scenario `agent tools`): `Running ` and the command's
 * description, else the command cut to 50 characters; `Reading`, `Writing`, `Editing` and the file's path (from the
 * working directory when it is under it); `Finding` and Glob's pattern; `Searching for` and Grep's pattern. A tool
 * Claude Code has no words for (an MCP server's, a `defineTool` one, the Agent tool) shows the task's own description.
 */
import { relative, isAbsolute, sep } from 'node:path';
import type { ContentBlock } from '../../core/messages.js';

/** The longest command shown; a longer one is cut to one less and `…`. */
const COMMAND_CHARS = 50;

/** Where the activity is: the run's working directory, and the task's description (the fallback). */
export interface ActivityPlace {
  cwd: string;
  taskDescription: string;
}

const cut = (text: string) => (text.length > COMMAND_CHARS ? `${text.slice(0, COMMAND_CHARS - 1)}…` : text);

/** `path` as Claude Code shows it: from the working directory when under it, else as it is. */
function shownPath(path: string, cwd: string): string {
  if (!isAbsolute(path)) return path;
  const from = relative(cwd, path);
  return from !== '' && !from.startsWith(`..${sep}`) && from !== '..' && !isAbsolute(from) ? from : path;
}

/** The progress line's description of `block` (a tool_use), whose tool is `publicName` (Claude Code's spelling). */
export function activityOf(block: ContentBlock | undefined, publicName: string, place: ActivityPlace): string {
  const input = (block?.type === 'tool_use' ? block.input : {}) as Record<string, unknown>;
  const text = (key: string) => (typeof input[key] === 'string' && input[key] !== '' ? (input[key] as string) : undefined);
  switch (publicName) {
    case 'Bash': {
      const said = text('description') ?? (text('command') !== undefined ? cut(text('command') as string) : undefined);
      return said !== undefined ? `Running ${said}` : place.taskDescription;
    }
    case 'Read': case 'Write': case 'Edit': {
      const path = text('file_path');
      const verb = { Read: 'Reading', Write: 'Writing', Edit: 'Editing' }[publicName];
      return path !== undefined ? `${verb} ${shownPath(path, place.cwd)}` : place.taskDescription;
    }
    case 'Glob':
      return text('pattern') !== undefined ? `Finding ${text('pattern')}` : place.taskDescription;
    case 'Grep':
      return text('pattern') !== undefined ? `Searching for ${text('pattern')}` : place.taskDescription;
    default:
      return place.taskDescription;
  }
}
