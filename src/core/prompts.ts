/**
 * The default system prompt, and the texts the loop itself writes into the history where no model or tool spoke: the
 * request to go on after a reply cut by max_tokens, the results of tools that were interrupted or never ran. What a
 * tool answers (the bash tool's `[interrupted: ...]`, `Not run: ...` from a hook) is the tool's own.
 */

/** The default system prompt. */
export function defaultSystemPrompt(cwd: string): string {
  return `You are a coding agent working in ${cwd}. Use the tools to look and act; answer briefly when the task is done.`;
}

/** The user message that asks the model to go on after a reply cut by max_tokens. */
export const CONTINUE_AFTER_MAX_TOKENS =
  'Output token limit hit. Resume directly where you stopped: no apology, no recap. Break the remaining work into smaller pieces.';

/** The result of a tool that was running, or waiting to run, when the user aborted. */
export const INTERRUPTED_BY_USER = 'interrupted by user';

/** The result of a tool_use that got no result at all (should not happen; keeps the history valid). */
export const NO_RESULT = 'no result was produced';

/** The result of the tools of a turn whose tool runner crashed. */
export const RUNNER_FAILED = 'not run: the tool runner failed';

/** The result given on resume to a tool that was running when the session ended. */
export const INTERRUPTED_TOOL_RESULT = 'interrupted: the session ended before this tool finished';
