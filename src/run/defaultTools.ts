/**
 * The tools agentloop's own commands give the model, set up one way for every entry point: a run of the CLI (one-shot,
 * REPL, stream-json input) and a durable worker's run. `runAgent` knows no tool: it runs the `tools` it is given, so a
 * library user who wants the CLI's bash tool passes `tools: defaultTools({ cwd })`.
 */
import type { Tool } from '../core/tool.js';
import { createBashTool, type BashToolOptions } from '../tools/bash/bashTool.js';
import { clientSecrets } from '../tools/bash/judge/secrets.js';
import { ID_PATTERN, sessionFilesDir, sessionsDir, transcriptPath } from '../transcript/paths.js';

export interface DefaultToolsOptions {
  /** The working directory of the commands (default: `process.cwd()`); give `runAgent` the same `cwd`. */
  cwd?: string;
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
}

/** What the bash tool is created with, from `options`: the one place both paths (the CLI and the worker) set it up. */
export function bashToolOptions(options: DefaultToolsOptions = {}): BashToolOptions {
  const session = options.session && ID_PATTERN.test(options.session.id) ? options.session : undefined;
  return {
    cwd: options.cwd ?? process.cwd(),
    ...(options.sandbox ? { sandbox: true } : {}),
    ...(options.allowEnv ? { allowEnv: options.allowEnv } : {}),
    ...(options.allowWrite ? { allowWrite: options.allowWrite } : {}),
    ...(session ? { outputDir: sessionFilesDir(transcriptPath(session.home, session.id)), hide: [sessionsDir(session.home)] } : {}),
    secrets: clientSecrets(options.client),
  };
}

/** agentloop's tools (the bash tool), set up from `options`. */
export function defaultTools(options: DefaultToolsOptions = {}): Tool[] {
  return [createBashTool(bashToolOptions(options))];
}
