/**
 * Claude Code's file tools, built in: Read, Write, Edit, Glob and Grep, made together so that they share one run's
 * file state (what the model has read: Write and Edit refuse a file not read first) and one containment guard.
 * docs/tools.md describes each.
 */
import { homedir } from 'node:os';
import { createEditTool } from '../edit/editTool.js';
import { createGlobTool } from '../glob/globTool.js';
import { createGrepTool } from '../grep/grepTool.js';
import { createReadTool } from '../read/readTool.js';
import { createWriteTool } from '../write/writeTool.js';
import { FileState } from './fileState.js';
import { FileGuard, type FileGuardOptions } from './guard.js';
import type { Tool, ToolPrepare } from '../../core/tool.js';
import { toolCalled, whileModelThinks } from '../modelThinks.js';
import { loadFilePackages } from './packages.js';
import { resolvePath } from './paths.js';

export interface FileToolsOptions extends FileGuardOptions {
  /** The working directory the tools are made for (descriptions, suggested rules; runs use `ToolContext.cwd`). */
  cwd?: string;
  /** The file state to share (a resumed run's, seeded from its history); default: a new one. */
  state?: FileState;
}

export type FileToolName = 'Read' | 'Write' | 'Edit' | 'Glob' | 'Grep';

/** The five tools, sharing one file state and one guard. */
export function createFileTools(options: FileToolsOptions = {}): Record<FileToolName, Tool> {
  const home = options.home ?? homedir();
  const shared = { state: options.state ?? new FileState(), guard: new FileGuard({ ...options, home }), cwd: options.cwd ?? process.cwd(), home };
  const tools = {
    Read: createReadTool(shared),
    Write: createWriteTool(shared),
    Edit: createEditTool(shared),
    Glob: createGlobTool(shared),
    Grep: createGrepTool(shared),
  };
  for (const tool of Object.values(tools)) {
    statesOf.set(tool, { state: shared.state, home });
    const run = tool.run.bind(tool);
    tool.run = (input, context) => (toolCalled(), run(input, context));
    tool.prepare = preparePackages;
  }
  return tools;
}

/** The runs (by their signal) whose file tools were prepared: five tools, one look. */
const prepared = new WeakSet<object>();

/** Their packages loaded while the run's first model call is under way (../modelThinks.ts); a no-op once loaded. */
function preparePackages(run?: ToolPrepare): void {
  const key = run?.signal ?? preparePackages;
  if (prepared.has(key)) return;
  prepared.add(key);
  whileModelThinks(loadFilePackages, run?.signal)();
}

const statesOf = new WeakMap<Tool, { state: FileState; home: string }>();

/** Whether `tool` is one of the five (their `prepare` waits for the run's own: the CLI starts no head start of theirs). */
export function isFileTool(tool: Tool): boolean {
  return statesOf.has(tool);
}

/**
 * A resumed run's history given to the file tools among `tools` (if any): the files it shows read count as read
 * (FileState.seedFromHistory; once per run's state). The host calls it before each run of a conversation.
 */
export function seedFileState(tools: readonly Tool[], history: readonly { role: string; content: unknown }[], cwd: string): void {
  const found = tools.map((tool) => statesOf.get(tool)).find((entry) => entry !== undefined);
  found?.state.seedFromHistory(history, (path) => resolvePath(path, cwd, found.home));
}

export { FileState };

const sets = new WeakMap<object, Record<FileToolName, Tool>>();

/**
 * The five tools made once for `key` (the options object of one `defaultTools` call), so that the entries of the list
 * of defaults, each made on its own, share one file state and one guard.
 */
export function sharedFileTools(key: object, options: () => FileToolsOptions): Record<FileToolName, Tool> {
  let set = sets.get(key);
  if (set === undefined) sets.set(key, (set = createFileTools(options())));
  return set;
}
