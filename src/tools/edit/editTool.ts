/**
 * Edit: replaces `old_string` by `new_string` in a file the model has read in this run, unchanged since; the string
 * must occur exactly once unless `replace_all`. An empty `old_string` creates a file that does not exist (or fills an
 * empty one). Claude Code 2.1.197's checks, in its order, and its words (recorded in test/tools/fileAccess/claudeCode.json).
 * The file keeps its encoding and line endings. The guard refuses what Write refuses.
 */
import type { Tool, ToolContext, ToolOutput } from '../../core/tool.js';
import { checkFields } from '../fileAccess/input.js';
import { CWD_NOTE, formatSize, resolvePath, toolUseError } from '../fileAccess/paths.js';
import { pathPermission } from '../fileAccess/permission.js';
import { pathField, type FileToolsShared } from '../fileAccess/shared.js';
import { patchOf, readTextFile, writeTextFile, type TextFile } from '../fileAccess/textFile.js';
import { similarFile } from '../read/similar.js';
import { STATE_IS_CURRENT, statOrNull, writeError } from '../write/writeTool.js';
import { DESCRIPTION, INPUT_SCHEMA } from './schema.js';

interface EditInput {
  file_path: string;
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

const FIELDS = {
  file_path: { kind: 'string', required: true },
  old_string: { kind: 'string', required: true },
  new_string: { kind: 'string', required: true },
  replace_all: { kind: 'boolean' },
} as const;

/** Claude Code's cap on a file to edit: 1 GiB. */
const MAX_EDIT_BYTES = 1024 ** 3;

export function createEditTool(shared: FileToolsShared): Tool {
  return {
    name: 'Edit',
    publicName: 'Edit',
    description: DESCRIPTION,
    inputSchema: INPUT_SCHEMA,
    isConcurrencySafe: () => false,
    isReadOnly: () => false,
    permission: pathPermission({ tool: 'Edit', pathOf: (i) => pathField(i, 'file_path'), edits: true, cwd: shared.cwd, home: shared.home }),
    display: { call: (input) => `Edit ${pathField(input, 'file_path') ?? ''}`.trimEnd() },
    async run(input, context) {
      const checked = checkFields<EditInput>('Edit', input, FIELDS);
      if ('problem' in checked) return toolUseError(checked.problem);
      try {
        return await edit(shared, checked.value, context);
      } catch (error) {
        return writeError(error, resolvePath(checked.value.file_path, context.cwd, shared.home));
      }
    },
  };
}

async function edit(shared: FileToolsShared, input: EditInput, context: ToolContext): Promise<ToolOutput> {
  const path = resolvePath(input.file_path, context.cwd, shared.home);
  const refused = shared.guard.writeReason(path, context.cwd);
  if (refused !== null) return toolUseError(refused);
  if (input.old_string === input.new_string) return toolUseError('No changes to make: old_string and new_string are exactly the same.');
  const stats = await statOrNull(path);
  if (stats !== null && stats.isFile() && stats.size > MAX_EDIT_BYTES) {
    return toolUseError(`File is too large to edit (${formatSize(stats.size)}). Maximum editable file size is ${formatSize(MAX_EDIT_BYTES)}.`);
  }
  if (stats !== null && !stats.isFile()) {
    const what = stats.isDirectory() ? 'a directory' : 'not a regular file (a FIFO, socket or device would block)';
    return toolUseError(`Cannot edit '${input.file_path}': it is ${what}.`);
  }
  const file = stats === null ? null : await readTextFile(path);
  if (file === null) {
    if (input.old_string === '') return apply(shared, path, input, null);
    const similar = await similarFile(path, context.cwd);
    return toolUseError(`File does not exist. ${CWD_NOTE} ${context.cwd}.${similar ? ` Did you mean ${similar}?` : ''}`);
  }
  if (input.old_string === '') {
    if (file.content.trim() !== '') return toolUseError('Cannot create new file - file already exists.');
    return apply(shared, path, input, file);
  }
  const stale = shared.state.staleReason(path, (stats as { mtimeMs: number }).mtimeMs, () => file.content);
  if (stale !== null) return toolUseError(stale);
  const count = occurrences(file.content, input.old_string);
  if (count === 0) return toolUseError(`String to replace not found in file.\nString: ${input.old_string}`);
  if (count > 1 && input.replace_all !== true) {
    return toolUseError(
      `Found ${count} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: ${input.old_string}`,
    );
  }
  return apply(shared, path, input, file);
}

async function apply(shared: FileToolsShared, path: string, input: EditInput, file: TextFile | null): Promise<ToolOutput> {
  const before = file?.content ?? '';
  const after = replaced(before, input.old_string, input.new_string, input.replace_all === true);
  const mtime = await writeTextFile(path, after, file ?? undefined);
  shared.state.saw(path, after, mtime, { whole: true });
  const replaceAll = input.replace_all === true;
  const data = {
    filePath: input.file_path,
    oldString: input.old_string,
    newString: input.new_string,
    originalFile: before,
    structuredPatch: patchOf(input.file_path, before, after),
    userModified: false,
    replaceAll,
  };
  const said = replaceAll ? 'has been updated. All occurrences were successfully replaced.' : 'has been updated successfully.';
  return { content: `The file ${input.file_path} ${said}${STATE_IS_CURRENT}`, isError: false, data };
}

/** `text` with `old` replaced literally (no `$&` patterns), once or everywhere; an empty `old` on an empty text: `neu`. */
export function replaced(text: string, old: string, neu: string, all: boolean): string {
  if (old === '') return neu;
  if (all) return text.split(old).join(neu);
  const at = text.indexOf(old);
  return at === -1 ? text : text.slice(0, at) + neu + text.slice(at + old.length);
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}
