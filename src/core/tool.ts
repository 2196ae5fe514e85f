import type Anthropic from '@anthropic-ai/sdk';
import type { SubagentHost } from './agents.js';

import type { ToolDefinition, ToolInputSchema } from './toolDefinition.js';

export type { ToolDefinition, ToolInputSchema } from './toolDefinition.js';

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
  /**
   * The run's deny rules with a specifier, from its permission gate (`Read(secret/**)`: `{ tool: 'Read', specifier:
   * 'secret/**' }`). A tool that reaches many paths in one call (Glob, Grep) leaves out what they cover, as Claude
   * Code's do; the gate itself judges the call as a whole.
   */
  denyRules?: readonly DenyRule[];
  /** The id of the tool_use block this call answers. */
  toolUseId?: string;
  /** The run's subagents and how to run one as its child (the Agent tool's: tools/agent/); absent: the run has none. */
  subagents?: SubagentHost;
}

/** A deny rule with a specifier: the tool's name as written, the text inside the parentheses. */
export interface DenyRule {
  tool: string;
  specifier: string;
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
  /**
   * Claude Code's structured result of the call: stream-json's `tool_use_result` and the `tool_response` an Agent SDK
   * PostToolUse hook gets (Read's `{type: 'text', file: {filePath, content, numLines, startLine, totalLines}}`, Bash's
   * `{stdout, stderr, interrupted, isImage, noOutputExpected}`). Absent: `content` is used.
   */
  data?: unknown;
}

/** How permission rules with a specifier (`Bash(npm test:*)`, `Edit(src/**)`) apply to a tool's calls. */
export interface ToolPermission {
  /**
   * Whether the specifier (the text inside the parentheses) covers this call. A deny rule reads broadly (any part of
   * the call matches: `effect` 'deny'), an allow rule strictly (every part covered: 'allow'). `dirs`: the working
   * directory first, then those of `--add-dir`.
   */
  matches(specifier: string, input: unknown, effect: 'allow' | 'deny', dirs: readonly string[]): boolean | Promise<boolean>;
  /**
   * Whether the allow rules' specifiers together cover the call, each part by one of them (a bash line
   * `git log && npm test` under `Bash(git log:*)` and `Bash(npm test:*)`). Absent: one specifier must match alone.
   */
  allowedBy?(specifiers: readonly string[], input: unknown, dirs: readonly string[]): boolean | Promise<boolean>;
  /** Throws an Error with a one-line message when the specifier cannot be a rule of this tool. */
  checkSpecifier?(specifier: string): void;
  /**
   * The names of other tools whose rules also apply to this one, as Claude Code applies them: `Edit(...)` rules to every
   * tool that edits files (Write: ['Edit']), `Read(...)` rules to every tool that reads them (Glob, Grep: ['Read']).
   * Their specifiers are read by this tool's `matches`.
   */
  ruleNames?: readonly string[];
  /** acceptEdits: whether this call only edits files inside `dirs` (then it runs unasked in that mode). */
  isEditWithin?(input: unknown, dirs: readonly string[]): boolean | Promise<boolean>;
  /** The rule that would allow this very call, as Claude Code writes it: `Bash(git commit *)`, `Edit(./src/app.ts)`. */
  suggestRule?(input: unknown): string;
  /**
   * Claude Code runs a read-only call unasked only inside the working directories: when given, whether this call reads
   * only inside `dirs` (a read outside them is asked about). Absent: a read-only call runs unasked wherever it reads.
   */
  isReadWithin?(input: unknown, dirs: readonly string[]): boolean | Promise<boolean>;
  /**
   * What a question about this call offers, as Claude Code 2.1.197's `permission_suggestions` (the Agent SDK's
   * `suggestions`): Write `[{type: 'setMode', mode: 'acceptEdits', ...}]`, Bash an `addRules` of its rule. Absent: the
   * rule of `suggestRule` (or the tool's name), to the local settings.
   */
  suggestions?(input: unknown, dirs: readonly string[]): PermissionUpdate[] | Promise<PermissionUpdate[]>;
}

/** Where a permission update is kept: this session, or a settings file. */
export type PermissionDestination = 'session' | 'localSettings' | 'projectSettings' | 'userSettings' | 'cliArg';

/** One of Claude Code's permission updates (a can_use_tool question's `permission_suggestions`, the Agent SDK's `PermissionUpdate`). */
export type PermissionUpdate =
  | { type: 'addRules'; rules: Array<{ toolName: string; ruleContent?: string }>; behavior: 'allow' | 'deny' | 'ask'; destination: PermissionDestination }
  | { type: 'setMode'; mode: string; destination: PermissionDestination }
  | { type: 'addDirectories'; directories: string[]; destination: PermissionDestination };

/** How a tool's call is shown: the terminal, the viewer, permission questions. */
export interface ToolDisplay {
  /** One line: `$ ls -A`, `Read src/a.ts`. */
  call(input: unknown): string;
}

/**
 * A tool the model may call. `run` receives the raw `input` of the tool_use block: it is
 * unvalidated model output, so a tool checks it and answers a bad input with `isError: true`.
 * `defineTool` (tools/define.ts) builds one from a declared input schema and does that check.
 */
export interface Tool {
  /** The name the model sees: `bash` (the chapter's tool), `Read`, `mcp__server__tool`. */
  name: string;
  /**
   * Claude Code's name of the tool: what hooks, permission rules, stream-json, the Agent SDK and the terminal use
   * (default: `name`). The bash tool's is `Bash`.
   */
  publicName?: string;
  description: string;
  inputSchema: ToolInputSchema;
  /**
   * Whether this call may run alongside others and start while the model is still streaming.
   * Decide conservatively: when unsure, answer false. Absent means never safe.
   */
  isConcurrencySafe?(input: unknown): boolean;
  /**
   * Whether this call only reads: it runs unasked in the default and plan modes. Absent means false. May be async (the
   * bash tool may need its shell parser); must not throw.
   */
  isReadOnly?(input: unknown): boolean | Promise<boolean>;
  /** How rules with a specifier match this tool's calls. Absent: such a rule denies every call and allows none. */
  permission?: ToolPermission;
  /** How a call is shown. Absent: `name` and the input as JSON (toolCallLine). */
  display?: ToolDisplay;
  run(input: unknown, context: ToolContext): Promise<ToolOutput>;
  /**
   * Called once a run while its first model call is under way (the request is sent and the model
   * is working): the moment to load what `run` needs, so the first call starts as fast as later
   * ones. Must not throw or block; a tool must work without it being called. `run` (from runAgent) gives the run's
   * working directory and a signal aborted at the run's end: what a tool starts ahead for the run is stopped then (the
   * bash tool's contained shell, started before its first command: tools/bash/run/spare.ts).
   */
  prepare?(run?: ToolPrepare): void;
  /**
   * What a traced run adds to this tool's `execute_tool` span (OpenTelemetry, src/otel/): an MCP tool names the MCP
   * method and its server's own names (tools/mcp/tools.ts).
   */
  spanAttributes?: Readonly<Record<string, string>>;
}

/** Claude Code's name of `tool` (hooks, rules, stream-json, the terminal). */
export function publicToolName(tool: Pick<Tool, 'name' | 'publicName'>): string {
  return tool.publicName ?? tool.name;
}

/** The tools of a run by the name the model calls them: what hosts look a call's tool up with. */
export type ToolLookup = (name: string) => Tool | undefined;

export function toolLookup(tools: readonly Tool[]): ToolLookup {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return (name) => byName.get(name);
}

/** Claude Code's name of the tool the model calls `name` (`bash` -> `Bash`); a name no tool has stays as it is. */
export function publicNameOf(lookup: ToolLookup | undefined, name: string): string {
  const tool = lookup?.(name);
  return tool ? publicToolName(tool) : name;
}

/** One line that shows a call of `tool` (of the name `name` when no tool has it): its display, else `name {json}`. */
export function toolCallLine(tool: Tool | undefined, name: string, input: unknown): string {
  if (tool?.display) {
    try {
      return tool.display.call(input);
    } catch {
      // A display that fails on a bad input shows the input as it is.
    }
  }
  return `${tool ? publicToolName(tool) : name} ${JSON.stringify(input) ?? ''}`.trimEnd();
}

/** The part of a tool that goes into the request body. */
export function toolDefinition(tool: Tool): ToolDefinition {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
}

/** What `Tool.prepare` is told of its run. */
export interface ToolPrepare {
  cwd: string;
  /** Aborted when the run has ended. */
  signal: AbortSignal;
}
