/**
 * The tools agentloop's own commands give the model, set up one way for every entry point: a run of the CLI (one-shot,
 * REPL, stream-json input) and a durable worker's run. `runAgent` knows no tool: it runs the `tools` it is given, so a
 * library user who wants the CLI's tools passes `tools: defaultTools({ cwd })`.
 *
 * The list of defaults (BUILT_IN) holds each built-in tool in one line: its names, whether it is offered unasked, and
 * how it is made. Which are offered follows Claude Code 2.1.197: Bash, Read, Write and Edit by default; Glob and Grep
 * when named (`tools`, or a permission rule naming either: then both, as Claude Code offers them); `tools` chooses.
 */
import type { Tool } from '../core/tool.js';
import type { AgentDefinitions } from '../core/agents.js';
import { AGENT_TOOL_NAME, createAgentTool } from '../tools/agent/agentTool.js';
import { createBashTool, type BashToolOptions, type CommandRunner } from '../tools/bash/bashTool.js';
import { clientSecrets } from '../tools/bash/judge/secrets.js';
import { BASH_PUBLIC_NAME, BASH_TOOL_NAME } from '../tools/bash/names.js';
import { sharedFileTools, type FileToolsOptions } from '../tools/fileAccess/fileTools.js';
import { ID_PATTERN, sessionFilesDir, sessionsDir, transcriptPath } from '../transcript/paths.js';

export interface DefaultToolsOptions {
  /** The working directory of the commands (default: `process.cwd()`); give `runAgent` the same `cwd`. */
  cwd?: string;
  /**
   * Which built-in tools, by Claude Code's names (`['Bash', 'Read', 'Glob']`; the model's names do too: `bash`);
   * `default` stands for those offered unasked. Default: those offered unasked (Bash, Read, Write, Edit).
   */
  tools?: readonly string[];
  /** How the bash tool runs commands, instead of agentloop's own ways: over SSH, in a container (`createBashTool`). */
  runner?: CommandRunner;
  /** Run every command under bubblewrap (see `createBashTool`): read-only system, no network, secrets hidden. */
  sandbox?: boolean;
  /** Credential variables (`*_API_KEY`, `*_TOKEN`, ...) the commands may see. */
  allowEnv?: string[];
  /** Under the sandbox: files that run later the commands may write after all (tools/bash/run/protect.ts). */
  allowWrite?: string[];
  /**
   * The session the tools work for (`home`: the store, e.g. `agentloopHome()`): the full output of long commands is
   * kept in its folder, `HOME/sessions/ID/`, where a later run of the session finds it, and under the sandbox the
   * store's sessions are hidden from the commands. Without: a temporary folder, removed when the process exits.
   */
  session?: { home: string; id: string };
  /** The API's credentials: never shown in a tool's result, even when they were read from a .env file. */
  client?: { apiKey?: string | undefined; authToken?: string | undefined };
  /** The run's subagents, listed by the Agent tool when `tools` names it (runAgent's `agents` adds it in any case). */
  agents?: AgentDefinitions;
}

/** One built-in tool: Claude Code's name and the model's, when it is offered unasked, how it is made. */
export interface BuiltInTool {
  publicName: string;
  name: string;
  /**
   * `default`: offered unasked; `search`: offered when named, or when a permission rule names a search tool; `agents`:
   * offered when the run has agents (`agents`: runAgent adds it then, ./subagents.ts) or when named.
   */
  offered: 'default' | 'search' | 'agents';
  /** The chapter's tool: the one the offline demo, the mistake demos and the lesson offer. */
  chapter?: true;
  create(options: DefaultToolsOptions): Tool;
}

/** The list of defaults: a new built-in tool is one folder and one line here. */
export const BUILT_IN_TOOLS: readonly BuiltInTool[] = [
  { publicName: BASH_PUBLIC_NAME, name: BASH_TOOL_NAME, offered: 'default', chapter: true, create: (o) => createBashTool(bashToolOptions(o)) },
  { publicName: 'Read', name: 'Read', offered: 'default', create: (o) => fileTools(o).Read },
  { publicName: 'Write', name: 'Write', offered: 'default', create: (o) => fileTools(o).Write },
  { publicName: 'Edit', name: 'Edit', offered: 'default', create: (o) => fileTools(o).Edit },
  { publicName: 'Glob', name: 'Glob', offered: 'search', create: (o) => fileTools(o).Glob },
  { publicName: 'Grep', name: 'Grep', offered: 'search', create: (o) => fileTools(o).Grep },
  { publicName: AGENT_TOOL_NAME, name: AGENT_TOOL_NAME, offered: 'agents', create: (o) => createAgentTool(o.agents ?? {}) },
];

/** The file tools of one `defaultTools` call (its options object): made once, they share what the model has read. */
function fileTools(options: DefaultToolsOptions) {
  return sharedFileTools(options, () => fileToolsOptions(options));
}

/** What the file tools are created with, from `options`: as the bash tool's, the session store hidden from them. */
export function fileToolsOptions(options: DefaultToolsOptions = {}): FileToolsOptions {
  const session = options.session && ID_PATTERN.test(options.session.id) ? options.session : undefined;
  return {
    cwd: options.cwd ?? process.cwd(),
    ...(options.sandbox ? { sandbox: true } : {}),
    ...(options.allowWrite ? { allowWrite: options.allowWrite } : {}),
    ...(session ? { hide: [sessionsDir(session.home)] } : {}),
  };
}

/** What the bash tool is created with, from `options`: the one place both paths (the CLI and the worker) set it up. */
export function bashToolOptions(options: DefaultToolsOptions = {}): BashToolOptions {
  const session = options.session && ID_PATTERN.test(options.session.id) ? options.session : undefined;
  return {
    cwd: options.cwd ?? process.cwd(),
    ...(options.runner ? { runner: options.runner } : {}),
    ...(options.sandbox ? { sandbox: true } : {}),
    ...(options.allowEnv ? { allowEnv: options.allowEnv } : {}),
    ...(options.allowWrite ? { allowWrite: options.allowWrite } : {}),
    ...(session ? { outputDir: sessionFilesDir(transcriptPath(session.home, session.id)), hide: [sessionsDir(session.home)] } : {}),
    secrets: clientSecrets(options.client),
  };
}

/** agentloop's built-in tools `options.tools` chooses (default: those offered unasked), set up from `options`. */
export function defaultTools(options: DefaultToolsOptions = {}): Tool[] {
  return chosenBuiltIns(options.tools).map((entry) => entry.create(options));
}

/** Every built-in tool, made from `options`: what checks a rule naming one of them (`Bash(git:* log)` is refused). */
export function allBuiltInTools(options: Omit<DefaultToolsOptions, 'tools'> = {}): Tool[] {
  return defaultTools({ ...options, tools: BUILT_IN_TOOLS.map((entry) => entry.publicName) });
}

/** The chapter's one tool (the bash tool), as the offline demo, the mistake demos and the lesson offer it. */
export function chapterTools(options: Omit<DefaultToolsOptions, 'tools'> = {}): Tool[] {
  return defaultTools({ ...options, tools: BUILT_IN_TOOLS.filter((entry) => entry.chapter).map((entry) => entry.publicName) });
}

/** The entries `names` chooses, in the list's order (undefined: those offered unasked; `default`, in any case, stands for them). */
export function chosenBuiltIns(names: readonly string[] | undefined, list: readonly BuiltInTool[] = BUILT_IN_TOOLS): BuiltInTool[] {
  const wanted = names ?? ['default'];
  const byDefault = wanted.some((name) => name.toLowerCase() === 'default');
  return list.filter((entry) => (byDefault && entry.offered === 'default') || wanted.includes(entry.publicName) || wanted.includes(entry.name));
}

/**
 * What a call of a tool the run does not offer is told, as Claude Code 2.1.197 tells it: `No such tool available: NAME`,
 * then, for a built-in tool left out, that it exists but is not enabled, or for a search tool (Glob, Grep) with Bash
 * offered, how to search with Bash instead.
 */
export function unavailableToolNote(offered: readonly Tool[]): (name: string) => string {
  const hasBash = offered.some((tool) => (tool.publicName ?? tool.name) === BASH_PUBLIC_NAME);
  return (name) => {
    const entry = BUILT_IN_TOOLS.find((e) => e.publicName === name || e.name === name);
    const search = SEARCH_HINTS[name];
    if (search !== undefined) {
      return hasBash ? `. ${name} is not available in this session — ${search} via the ${BASH_PUBLIC_NAME} tool instead.` : `. ${name} is not available in this context. Use one of the available tools instead.`;
    }
    return entry === undefined ? '' : `. ${name} exists but is not enabled in this context. Use one of the available tools instead.`;
  };
}

/** Claude Code's hints for its search tools when they are not offered. */
const SEARCH_HINTS: Readonly<Record<string, string>> = {
  Glob: 'find files with `find`',
  Grep: 'search file contents with `grep`',
};
