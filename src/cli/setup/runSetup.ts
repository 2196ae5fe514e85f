/**
 * The setup of a run on its way from the parsed options to runAgent's options: ./pipeline.ts builds a `RunSetup`
 * (what every question of the command shares), ./ask.ts adds what a session fixes (`SessionSetup`: its transcript,
 * its tools) and asks each question with what the question brings (`Turn`). What an entry point adds of its own (the
 * viewer's gate and inspector, the Agent SDK's initialize, set_model and thinking, structured output's tool) is set
 * on `run` under runAgent's own names: nothing travels beside it.
 */
import type { RunEvent } from '../../core/events.js';
import type { AgentDefinitions } from '../../core/agents.js';
import type { Tool } from '../../core/tool.js';
import type { RunAgentOptions } from '../../run/runOptions.js';
import type { McpServerState } from '../../tools/mcp/servers.js';
import type { CliOptions } from '../commandLine/args.js';
import type { PreparedSession } from './session.js';

/** The runAgent options a step of the setup sets (the rest come from the flags' limits, the session and the turn: ./ask.ts). */
export type SetupRun = Pick<RunAgentOptions, 'model'> &
  Partial<Pick<RunAgentOptions, 'modelCall' | 'client' | 'hooks' | 'permissions' | 'tracing' | 'addTools' | 'redactor' | 'inspect' | 'gate' | 'system' | 'appendSystemPrompt' | 'agents' | 'thinking' | 'maxTokens'>>;

/** What every question of a command is asked with. */
export interface RunSetup {
  readonly options: CliOptions;
  /** The tools' working directory (--cwd, resolved). */
  readonly cwd: string;
  readonly version: string;
  /**
   * runAgent's options so far: the model and how to reach it (the scripted demo, or the API from env/.env/flags), the
   * permission gate (./permissions.ts, or the reference the control channel swaps), OpenTelemetry (./telemetry.ts),
   * the tools of `--mcp-config`'s servers (./mcp.ts), what no output may hold (../printers/terminal.ts).
   */
  readonly run: SetupRun;
  /** The MCP servers' states when the run started, for the init line. */
  readonly mcpStates?: McpServerState[];
}

/** A setup once its session is open: what stays the same for every question of the session. */
export interface SessionSetup extends RunSetup {
  readonly session: PreparedSession;
  /** agentloop's built-in tools the flags choose (./toolSet.ts), set up for this session. */
  readonly tools: Tool[];
  /** Claude Code's memory files (CLAUDE.md) as the reminder every request starts with (./claudeMd.ts), if any. */
  readonly memory?: string;
  /** `--debug`, `--debug-file`: where each run event goes as a JSON line (redacted), besides the turn's printer. */
  readonly debug?: (event: RunEvent) => void;
  /** The session's subagents (its agent files, `--agents`; an initialize request's join them: ./agents.ts). */
  readonly agents?: AgentDefinitions;
}

/** What a question brings besides itself and the history it goes on from. */
export interface Turn {
  signal: AbortSignal;
  /** The printer of the turn (../printers/printer.ts). */
  onEvent: (event: RunEvent) => void;
  /** A resumed session's first run goes on counting turns from here. */
  turnCount?: number | undefined;
}

/** `setup` with `more` of runAgent's options set. */
export function withRun<T extends RunSetup>(setup: T, more: Partial<SetupRun>): T {
  return { ...setup, run: { ...setup.run, ...more } };
}
