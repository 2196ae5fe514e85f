/**
 * Write: creates a file, or replaces one the model has read in full in this run and that has not changed since
 * (the file state: fileAccess/fileState.ts); folders are made as needed. Claude Code 2.1.197's answers
 * ("File created successfully at: ...", "The file ... has been updated successfully.") and refusals. The guard
 * (fileAccess/guard.ts) refuses the agent's secrets, the files that run later and, under --sandbox, any place outside
 * the working directory.
 */
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import type { Tool, ToolContext, ToolOutput } from '../../core/tool.js';
import { checkFields } from '../fileAccess/input.js';
import { callError, errnoCode, resolvePath, toolUseError } from '../fileAccess/paths.js';
import { pathPermission } from '../fileAccess/permission.js';
import { pathField, type FileToolsShared } from '../fileAccess/shared.js';
import { patchOf, readTextFile, writeTextFile, type TextFile } from '../fileAccess/textFile.js';
import { DESCRIPTION, INPUT_SCHEMA } from './schema.js';

/** What Write and Edit add to a success: the model need not read the file back. */
export const STATE_IS_CURRENT = ' (file state is current in your context \u2014 no need to Read it back)';

interface WriteInput {
  file_path: string;
  content: string;
}

const FIELDS = { file_path: { kind: 'string', required: true }, content: { kind: 'string', required: true } } as const;

export function createWriteTool(shared: FileToolsShared): Tool {
  return {
    name: 'Write',
    publicName: 'Write',
    description: DESCRIPTION,
    inputSchema: INPUT_SCHEMA,
    isConcurrencySafe: () => false,
    isReadOnly: () => false,
    permission: pathPermission({ tool: 'Write', ruleNames: ['Edit'], pathOf: (i) => pathField(i, 'file_path'), edits: true, cwd: shared.cwd, home: shared.home }),
    display: { call: (input) => `Write ${pathField(input, 'file_path') ?? ''}`.trimEnd() },
    async run(input, context) {
      const checked = checkFields<WriteInput>('Write', input, FIELDS);
      if ('problem' in checked) return toolUseError(checked.problem);
      return write(shared, checked.value, context);
    },
  };
}

async function write(shared: FileToolsShared, input: WriteInput, context: ToolContext): Promise<ToolOutput> {
  const path = resolvePath(input.file_path, context.cwd, shared.home);
  const refused = shared.guard.writeReason(path, context.cwd);
  if (refused !== null) return toolUseError(refused);
  let original: TextFile | null = null;
  try {
    const stats = await statOrNull(path);
    if (stats !== null) {
      if (stats.isDirectory()) return callError(`EISDIR: illegal operation on a directory, open '${path}'`);
      if (!stats.isFile()) return toolUseError(`Cannot write '${input.file_path}': it is not a regular file (a FIFO, socket or device would block).`);
      original = await readTextFile(path);
      const stale = shared.state.staleReason(path, stats.mtimeMs, () => (original as TextFile).content);
      if (stale !== null) return toolUseError(stale);
    }
    const mtime = await writeTextFile(path, input.content, original ? { encoding: original.encoding, crlf: false } : undefined);
    shared.state.saw(path, input.content, mtime, { whole: true });
  } catch (error) {
    return writeError(error, path);
  }
  if (original === null) {
    const data = { type: 'create', filePath: input.file_path, content: input.content, structuredPatch: [], originalFile: null, userModified: false };
    return { content: `File created successfully at: ${input.file_path}${STATE_IS_CURRENT}`, isError: false, data };
  }
  const structuredPatch = patchOf(input.file_path, original.content, input.content);
  const data = { type: 'update', filePath: input.file_path, content: input.content, structuredPatch, originalFile: original.content, userModified: false };
  return { content: `The file ${input.file_path} has been updated successfully.${STATE_IS_CURRENT}`, isError: false, data };
}

export async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
}

export function writeError(error: unknown, path: string): ToolOutput {
  const code = errnoCode(error);
  if (code === 'EACCES' || code === 'EPERM') return callError(`${code}: permission denied, open '${path}'`);
  if (code === 'EROFS') return callError(`EROFS: read-only file system, open '${path}'`);
  if (code === 'ENOTDIR') return callError(`ENOTDIR: not a directory, open '${path}'`);
  if (code === 'ENOSPC') return callError(`ENOSPC: no space left on device, write '${path}'`);
  return callError(error instanceof Error ? (error.message.split('\n')[0] ?? 'the file could not be written') : String(error));
}
