/**
 * One function that asks a question, for every entry point: the one-shot run (../commands/run.ts), the REPL (../commands/repl.ts) and
 * stream-json input (../control/streamInput.ts), with the setup of its session (./runSetup.ts: the flags, the working
 * directory, runAgent's options so far, the session and its tools) and what the question brings (how to stop the run,
 * where its events go).
 */
import { openSync, writeSync } from 'node:fs';
import { agentloopHome } from '../../core/home.js';
import { jsonLine } from '../printers/terminal.js';
import type { RunEvent } from '../../core/events.js';
import type { MessageParam } from '../../core/messages.js';
import type { DefaultToolsOptions } from '../../run/defaultTools.js';
import type { RunResult } from '../../run/runAgent.js';
import type { Question } from '../../transcript/records.js';
import type { CliOptions } from '../commandLine/args.js';
import type { PreparedSession } from './session.js';
import { limitsOf } from './start.js';
import type { RunSetup, SessionSetup, Turn } from './runSetup.js';
import { offeredToolNames } from './toolSet.js';
import { offeredAgents, sessionAgents } from './agents.js';
import { childResumeNotices } from './childNotices.js';
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

/** The setup of `session`, with its tools (an unrecorded session keeps long outputs in a temporary folder). */
export async function sessionSetup(setup: RunSetup, session: PreparedSession): Promise<SessionSetup> {
  const { options, cwd } = setup;
  const { defaultTools, BUILT_IN_TOOLS } = await import('../../run/defaultTools.js');
  const settings = toolSettings(options, cwd, setup.run.client, process.env);
  const names = offeredToolNames(options, BUILT_IN_TOOLS);
  const tools = defaultTools({ ...settings(session.recorder ? session.id : undefined), ...(names ? { tools: names } : {}) });
  const memory = memoryOf(options, cwd);
  const debug = debugOf(options);
  const agents = sessionAgents(options, cwd);
  return { ...setup, session, tools, ...(memory ? { memory } : {}), ...(debug ? { debug } : {}), ...(agents ? { agents } : {}) };
}

/**
 * Asks `question` (or, with `null`, lets the model finish a turn `history` leaves open) and runs the loop to its end:
 * runAgent's options are the flags' limits, the setup's (which an entry point may have set over them: initialize's
 * system prompt, a turn's thinking), the session's and the turn's.
 */
export async function ask(setup: SessionSetup, question: Question | null, history: MessageParam[], turn: Turn): Promise<RunResult> {
  const { options, session, run } = setup;
  const { runAgent } = await import('../../run/runAgent.js');
  // A resumed session's file reads count for Write and Edit, as in Claude Code (docs/tools.md#write).
  (await import('../../tools/fileAccess/fileTools.js')).seedFileState(setup.tools, history, setup.cwd);
  const hooks = setup.memory ? withMemory(run.hooks, setup.memory) : run.hooks;
  return runAgent(question, {
    ...limitsOf(options, turn.turnCount),
    ...run,
    ...(hooks ? { hooks } : {}),
    ...(turn.turnCount !== undefined ? { turnCount: turn.turnCount } : {}),
    ...(options.includePartialMessages ? { includeStreamEvents: true } : {}),
    ...(session.recorder ? { session: session.recorder } : {}),
    cwd: setup.cwd,
    tools: setup.tools,
    messages: history,
    sessionId: session.id,
    signal: turn.signal,
    onEvent: onEventOf(setup, turn),
    ...(session.cutAgents?.length ? { cutAgents: session.cutAgents } : {}),
    agents: offeredAgents(options, setup.agents, run.agents),
  });
}

/** The run's listener: `--debug`'s, the resumed session's notices of its cut-off subagents (./childNotices.ts), the entry point's. */
function onEventOf({ debug, session }: SessionSetup, { onEvent }: Turn): (event: RunEvent) => void {
  const listener = debug ? both(debug, onEvent) : onEvent;
  return session.cutAgents?.length ? both(childResumeNotices(session.id), listener) : listener;
}
