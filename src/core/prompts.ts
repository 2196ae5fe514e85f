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

/**
 * The request for a summary that compaction sends (src/history/compact.ts), after the history it summarizes. Its
 * sections follow Claude Code 2.1.197's compact prompt (recorded in test/history/claudeCompact.json); its first line
 * is how a model service (the scripted model, say) tells a summary request from a turn of the loop.
 */
export const COMPACT_PROMPT = `CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.

Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions. It replaces the conversation: whatever it leaves out is lost to you, so capture what is needed to go on with the work without losing context.

Before your summary, wrap your analysis in <analysis> tags: go through the conversation in order, noting the user's requests, what you did, the key decisions, file names, code and commands, errors and how they were fixed, and any instruction or constraint the user stated (keep those verbatim).

Your summary, in <summary> tags, has these sections:
1. Primary Request and Intent: every explicit request and intent of the user, in detail.
2. Key Technical Concepts: the technologies, concepts and frameworks involved.
3. Files and Code Sections: the files examined, changed or created, why each matters, and the code that matters (the most recent in full).
4. Errors and fixes: every error met and how it was fixed, and what the user said about it.
5. Problem Solving: the problems solved and the troubleshooting under way.
6. All user messages: every user message that is not a tool result, with instructions and constraints verbatim.
7. Pending Tasks: what you were asked to do and have not done.
8. Current Work: precisely what was being worked on right before this request, with file names and code.
9. Optional Next Step: the next step, only if it is directly in line with the user's latest request, quoting where you left off.`;

/** What follows COMPACT_PROMPT when the user gave instructions for the summary (`/compact INSTRUCTIONS`, a PreCompact hook). */
export function compactInstructions(instructions: string): string {
  return `\n\nAdditional Instructions:\n${instructions}`;
}

/** The last line of the summary request: Claude Code's reminder. */
export const COMPACT_REMINDER = '\n\nREMINDER: Do NOT call any tools. Respond with plain text only: an <analysis> block followed by a <summary> block.';

/**
 * The user message that starts the history after a compaction boundary: the summary, as Claude Code words it
 * (recorded in test/history/claudeCompact.json), with what agentloop keeps beside it (the user's latest request
 * verbatim, the files in play, where the whole transcript is).
 */
export function compactedHistoryText(summary: string, kept: { latestRequest?: string; files?: readonly string[]; transcriptPath?: string }): string {
  const parts = [
    `This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n${summary}`,
  ];
  if (kept.latestRequest) parts.push(`The user's latest request, verbatim:\n${kept.latestRequest}`);
  if (kept.files && kept.files.length > 0) parts.push(`Files in play (read them again for their current content):\n${kept.files.map((f) => `- ${f}`).join('\n')}`);
  if (kept.transcriptPath) parts.push(`If you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: ${kept.transcriptPath}`);
  parts.push(
    'Continue the conversation from where it left off without asking the user any further questions. Resume directly: do not acknowledge the summary, do not recap what was happening. Pick up the last task as if the break never happened.',
  );
  return parts.join('\n\n');
}

/** What an old tool result's content becomes when compaction clears it (Claude Code's words). */
export const CLEARED_TOOL_RESULT = '[Old tool result content cleared]';
