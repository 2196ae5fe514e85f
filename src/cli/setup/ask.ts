/**
 * One function that asks a question, for every entry point: the one-shot run (../commands/run.ts), the REPL (../commands/repl.ts) and
 * stream-json input (../control/streamInput.ts). A conversation holds what stays across a session's questions (the flags, the
 * working directory, the session and its tools); each question brings what differs between the entry points (the
 * model as a control request left it, how to stop the run, where its events go, a page's gate or inspector).
 */
import { openSync, writeSync } from 'node:fs';
import { agentloopHome } from '../../core/home.js';
import { jsonLine } from '../printers/terminal.js';
import type { RunEvent } from '../../core/events.js';
import type { MessageParam } from '../../core/messages.js';
import type { Tool } from '../../core/tool.js';
import type { DefaultToolsOptions } from '../../run/defaultTools.js';
import type { RunAgentOptions, RunResult } from '../../run/runAgent.js';
import type { Question } from '../../transcript/records.js';
import type { CliOptions } from '../commandLine/args.js';
import type { PreparedSession } from '../commands/sessions.js';
import { limitsOf, type ModelChoice } from './start.js';
import { offeredToolNames } from './toolSet.js';
import { offeredAgents, sessionAgents } from './agents.js';
import { childResumeNotices } from './childNotices.js';
import type { AgentDefinitions } from '../../core/agents.js';
import { MAX_TOTAL_CHARS, memoryReminder, readMemoryFiles, withMemory } from './claudeMd.js';

/**
 * `--debug` (stderr) or `--debug-file PATH` (appended; made readable by the user only): agentloop's debug lines are
 * its run events, as `--include-loop-events` gives them, one JSON line each, redacted as every output is.
 */
function debugOf(options: CliOptions): ((event: RunEvent) => void) | undefined {
  if (options.debugFile !== undefined) {
    try {
      const fd = openSync(options.debugFile, 'a', 0o600);
      return (event) => void writeSync(fd, jsonLine(event));
    } catch (error) {
      process.stderr.write(`agentloop: --debug-file ${options.debugFile}: ${(error as Error).message}: no debug lines are written\n`);
      return undefined;
    }
  }
  return options.debug ? (event) => void process.stderr.write(jsonLine(event)) : undefined;
}

const both = (first: (event: RunEvent) => void, second: (event: RunEvent) => void) => (event: RunEvent) => {
  first(event);
  second(event);
};

/**
 * The memory files of `--setting-sources` (all three without it, none with `--bare`) as Claude Code's reminder; the
 * files left out past the bound are said on stderr.
 */
function memoryOf(options: CliOptions, cwd: string): string | undefined {
  // --exclude-dynamic-system-prompt-sections: the default system prompt's working directory comes here instead.
  const moved = options.excludeDynamicSystemPromptSections && options.systemPrompt === undefined ? `<system-reminder>\n# Environment\nWorking directory: ${cwd}\n</system-reminder>\n\n` : '';
  return `${moved}${memoryFilesOf(options, cwd) ?? ''}` || undefined;
}

function memoryFilesOf(options: CliOptions, cwd: string): string | undefined {
  if (options.bare) return undefined;
  const { files, left } = readMemoryFiles(cwd, options.settingSources ?? ['user', 'project', 'local'], process.env);
  if (left.length) process.stderr.write(`agentloop: memory files left out (past ${MAX_TOTAL_CHARS} characters in all): ${left.join(', ')}\n`);
  if (files.length === 0) return undefined;
  const now = new Date();
  const date = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
  return memoryReminder(files, date);
}

export interface Conversation {
  readonly options: CliOptions;
  /** The tools' working directory. */
  readonly cwd: string;
  readonly session: PreparedSession;
  /** The same for every question of the session: agentloop's built-in tools the flags choose (./toolSet.ts), set up from them. */
  readonly tools: Tool[];
  /** Claude Code's memory files (CLAUDE.md) as the reminder every request starts with (./claudeMd.ts), if any. */
  readonly memory?: string;
  /** `--debug`, `--debug-file`: where each run event goes as a JSON line (redacted), besides the run's own printer. */
  readonly debug?: (event: RunEvent) => void;
  /** The session's subagents (its agent files, `--agents`; an initialize request's join them: ./agents.ts). */
  readonly agents?: AgentDefinitions;
}

/** What a question brings besides itself and the history it goes on from. */
export interface Asking {
  choice: ModelChoice;
  signal: AbortSignal;
  onEvent: (event: RunEvent) => void;
  /** A resumed session's first run goes on counting turns from here. */
  turnCount?: number | undefined;
  /** What only this entry point gives the run: the viewer's gate and inspector, a control request's system prompt. */
  extra?: Partial<RunAgentOptions>;
}

/**
 * The default tools' settings from the flags a run and a worker share (--cwd, --sandbox, --allow-env, --allow-write),
 * for session `id` of the store in `env` (none: long outputs go to a temporary folder).
 */
export function toolSettings(
  flags: Pick<CliOptions, 'sandbox' | 'allowEnv' | 'allowWrite'>,
  cwd: string,
  client: DefaultToolsOptions['client'],
  env: NodeJS.ProcessEnv,
): (id: string | undefined) => DefaultToolsOptions {
  return (id) => ({
    cwd,
    ...(flags.sandbox ? { sandbox: true } : {}),
    ...(flags.allowEnv ? { allowEnv: flags.allowEnv } : {}),
    ...(flags.allowWrite ? { allowWrite: flags.allowWrite } : {}),
    // The full output of long commands stays with the session; under the sandbox the store's sessions are hidden.
    ...(id !== undefined ? { session: { home: agentloopHome(env), id } } : {}),
    ...(client ? { client } : {}),
  });
}

/** The conversation of `session`, with its tools (an unrecorded session keeps long outputs in a temporary folder). */
export async function conversationOf(options: CliOptions, cwd: string, choice: ModelChoice, session: PreparedSession): Promise<Conversation> {
  const { defaultTools, BUILT_IN_TOOLS } = await import('../../run/defaultTools.js');
  const settings = toolSettings(options, cwd, choice.client, process.env);
  const names = offeredToolNames(options, BUILT_IN_TOOLS);
  const tools = defaultTools({ ...settings(session.recorder ? session.id : undefined), ...(names ? { tools: names } : {}) });
  const memory = memoryOf(options, cwd);
  const debug = debugOf(options);
  const agents = sessionAgents(options, cwd);
  return { options, cwd, session, tools, ...(memory ? { memory } : {}), ...(debug ? { debug } : {}), ...(agents ? { agents } : {}) };
}

/** Asks `question` (or, with `null`, lets the model finish a turn `history` leaves open) and runs the loop to its end. */
export async function ask(conversation: Conversation, question: Question | null, history: MessageParam[], asking: Asking): Promise<RunResult> {
  const { options, session } = conversation;
  const { runAgent } = await import('../../run/runAgent.js');
  // A resumed session's file reads count for Write and Edit, as in Claude Code (docs/tools.md#write).
  (await import('../../tools/fileAccess/fileTools.js')).seedFileState(conversation.tools, history, conversation.cwd);
  const hooks = conversation.memory ? withMemory(asking.choice.hooks, conversation.memory) : asking.choice.hooks;
  return runAgent(question, {
    ...asking.choice,
    ...(hooks ? { hooks } : {}),
    ...limitsOf(options, asking.turnCount),
    ...(asking.turnCount !== undefined ? { turnCount: asking.turnCount } : {}),
    ...(options.includePartialMessages ? { includeStreamEvents: true } : {}),
    ...(session.recorder ? { session: session.recorder } : {}),
    cwd: conversation.cwd,
    tools: conversation.tools,
    messages: history,
    sessionId: session.id,
    signal: asking.signal,
    onEvent: onEventOf(conversation, asking),
    ...(session.cutAgents?.length ? { cutAgents: session.cutAgents } : {}),
    ...asking.extra,
    agents: offeredAgents(options, conversation.agents, asking.extra?.agents),
  });
}

/** The run's listener: `--debug`'s, the resumed session's notices of its cut-off subagents (./childNotices.ts), the entry point's. */
function onEventOf({ debug, session }: Conversation, { onEvent }: Asking): (event: RunEvent) => void {
  const listener = debug ? both(debug, onEvent) : onEvent;
  return session.cutAgents?.length ? both(childResumeNotices(session.id), listener) : listener;
}
