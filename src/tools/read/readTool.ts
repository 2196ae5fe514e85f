/**
 * Read: a file's lines numbered as `cat -n` writes them (`1\ta`), from `offset` for `limit` lines; an image as an
 * image block; Claude Code 2.1.197's answers, limits and errors (recorded in test/tools/fileAccess/claudeCode.json):
 * 256 KB for a read without `limit`, 25,000 tokens (a whole-file read is cut to a first page instead), binary
 * formats refused by name, a directory or a missing file answered with Claude Code's words. A FIFO, socket or device
 * is refused before it is opened (opening one would block). What the model saw is recorded for Write and Edit.
 */
import type { Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { Tool, ToolContext, ToolOutput } from '../../core/tool.js';
import { checkFields } from '../fileAccess/input.js';
import { callError, CWD_NOTE, errnoCode, formatSize, resolvePath, toolUseError } from '../fileAccess/paths.js';
import { pathPermission } from '../fileAccess/permission.js';
import { pathField, type FileToolsShared } from '../fileAccess/shared.js';
import { extensionOf, IMAGE_TYPES, imageSize, isBinaryName, isEndlessDevice } from './kinds.js';
import { numbered, readLineSlice } from './lines.js';
import { DESCRIPTION, INPUT_SCHEMA } from './schema.js';
import { estimateTokens, firstPage, MAX_TOKENS, tooManyTokens } from './tokenCap.js';
import { similarFile } from './similar.js';

export interface ReadInput {
  file_path: string;
  offset?: number;
  limit?: number;
  pages?: string;
}

/** Claude Code's size cap of a read without `limit`. */
export const MAX_SIZE_BYTES = 256 * 1024;
/** Images larger than this are not sent (the API takes at most 5 MB of base64). */
const MAX_IMAGE_BYTES = 3_750_000;

/** Claude Code's answer to the same Read of a file unchanged since. */
const UNCHANGED = 'Wasted call \u2014 file unchanged since your last Read. Refer to that earlier tool_result instead.';

const FIELDS = {
  file_path: { kind: 'string', required: true },
  offset: { kind: 'integer', min: 0 },
  limit: { kind: 'integer', min: 0, exclusive: true },
  pages: { kind: 'string' },
} as const;

export function createReadTool(shared: FileToolsShared): Tool {
  return {
    name: 'Read',
    publicName: 'Read',
    description: DESCRIPTION,
    inputSchema: INPUT_SCHEMA,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    permission: pathPermission({ tool: 'Read', pathOf: (i) => pathField(i, 'file_path'), edits: false, cwd: shared.cwd, home: shared.home }),
    display: { call: (input) => `Read ${pathField(input, 'file_path') ?? ''}`.trimEnd() },
    async run(input, context) {
      const checked = checkFields<ReadInput>('Read', input, FIELDS);
      if ('problem' in checked) return toolUseError(checked.problem);
      return read(shared, checked.value, context);
    },
  };
}

async function read(shared: FileToolsShared, input: ReadInput, context: ToolContext): Promise<ToolOutput> {
  const path = resolvePath(input.file_path, context.cwd, shared.home);
  const refused = shared.guard.readReason(path, context.cwd);
  if (refused !== null) return toolUseError(refused);
  if (isBinaryName(path)) {
    const ext = path.slice(path.lastIndexOf('.')).toLowerCase();
    return toolUseError(`This tool cannot read binary files. The file appears to be a binary ${ext} file. Please use appropriate tools for binary file analysis.`);
  }
  if (isEndlessDevice(path)) return toolUseError(`Cannot read '${input.file_path}': this device file would block or produce infinite output.`);
  let stats: Stats;
  try {
    stats = await stat(path);
  } catch (error) {
    return statError(error, path, context.cwd);
  }
  if (stats.isDirectory()) return callError(`EISDIR: illegal operation on a directory, read '${path}'`);
  if (!stats.isFile()) return toolUseError(`Cannot read '${input.file_path}': this device file would block or produce infinite output.`);
  const ext = extensionOf(path);
  if (ext in IMAGE_TYPES) return readImage(path, input.file_path, IMAGE_TYPES[ext] as string, stats.size);
  if (ext === 'pdf') return callError(`Reading PDF files is not supported by this Read tool: ${input.file_path}. Extract its text with a command (pdftotext) instead.`);
  if (input.limit === undefined && stats.size > MAX_SIZE_BYTES) {
    return callError(`File content (${formatSize(stats.size)}) exceeds maximum allowed size (${formatSize(MAX_SIZE_BYTES)}). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file.`);
  }
  try {
    return await readText(shared, path, input, stats, context.signal);
  } catch (error) {
    return statError(error, path, context.cwd);
  }
}

async function readText(shared: FileToolsShared, path: string, input: ReadInput, stats: Stats, signal: AbortSignal): Promise<ToolOutput> {
  const offset = input.offset ?? 1;
  if (shared.state.isUnchangedRead(path, offset, input.limit, stats.mtimeMs)) {
    return { content: UNCHANGED, isError: false, data: { type: 'file_unchanged', file: { filePath: input.file_path } } };
  }
  const slice = await readLineSlice(path, offset === 0 ? 0 : offset - 1, input.limit, signal);
  let { content, lineCount } = slice;
  let note: string | undefined;
  const tokens = estimateTokens(content, extensionOf(path));
  if (tokens > MAX_TOKENS) {
    if (offset > 1 || input.limit !== undefined) return callError(tooManyTokens(tokens));
    ({ content, lineCount, note } = firstPage(content, slice.totalLines, tokens));
  }
  const whole = offset <= 1 && input.limit === undefined;
  shared.state.saw(path, content, stats.mtimeMs, { whole, partial: note !== undefined, range: { offset, limit: input.limit } });
  const startLine = note !== undefined ? Math.max(1, offset) : offset;
  const file = { filePath: input.file_path, content, numLines: lineCount, startLine, totalLines: slice.totalLines, ...(note ? { truncatedByTokenCap: true } : {}) };
  return { content: textResult(file, note), isError: false, data: { type: 'text', file } };
}

function textResult(file: { content: string; startLine: number; totalLines: number }, note: string | undefined): string {
  if (file.content !== '') return `${note ? `<system-reminder>${note}</system-reminder>\n\n` : ''}${numbered(file.content, file.startLine)}`;
  if (file.totalLines === 0) return '<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>';
  return `<system-reminder>Warning: the file exists but is shorter than the provided offset (${file.startLine}). The file has ${file.totalLines} lines.</system-reminder>`;
}

async function readImage(path: string, given: string, mediaType: string, size: number): Promise<ToolOutput> {
  if (size === 0) return callError(`Image file is empty: ${path}`);
  if (size > MAX_IMAGE_BYTES) return callError(`Image file is too large to send (${formatSize(size)}; at most ${formatSize(MAX_IMAGE_BYTES)}): ${given}. Make a smaller copy with a command and read that.`);
  const bytes = await readFile(path);
  const base64 = bytes.toString('base64');
  const found = imageSize(bytes);
  const dimensions = found ? { originalWidth: found.width, originalHeight: found.height, displayWidth: found.width, displayHeight: found.height } : undefined;
  return {
    content: `[image ${given}: ${mediaType}, ${formatSize(size)}]`,
    blocks: [{ type: 'image', source: { type: 'base64', data: base64, media_type: mediaType as 'image/png' } }],
    isError: false,
    data: { type: 'image', file: { base64, type: mediaType, originalSize: size, ...(dimensions ? { dimensions } : {}) } },
  };
}

async function statError(error: unknown, path: string, cwd: string): Promise<ToolOutput> {
  const code = errnoCode(error);
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    const similar = await similarFile(path, cwd);
    return callError(`File does not exist. ${CWD_NOTE} ${cwd}.${similar ? ` Did you mean ${similar}?` : ''}`);
  }
  if (code === 'EACCES' || code === 'EPERM') return callError(`${code}: permission denied, open '${path}'`);
  if (code === 'ELOOP') return callError(`ELOOP: too many symbolic links encountered, open '${path}'`);
  if (code === 'ABORT_ERR') return callError('Interrupted: the read was aborted.');
  return callError(error instanceof Error ? error.message.split('\n')[0] ?? 'the file could not be read' : String(error));
}
