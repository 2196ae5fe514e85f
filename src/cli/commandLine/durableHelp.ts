/**
 * What a flag does for `worker` and `submit`, where that differs from what it does for a run (`--help` and the docs'
 * table show these lines in their place): the worker's flags are the floor and the defaults of every run it serves,
 * a submit's hold for its run, and a call the mode would ask about waits for `agentloop approve` (docs/durable.md).
 */
import type { CommandName } from './optionTable.js';

const MODES =
  'default (read-only calls; also manual), acceptEdits (and edits and mkdir, touch, mv, cp inside the working directory), plan (read-only only), dontAsk (what would be asked is denied), bypassPermissions (everything; as root only with IS_SANDBOX=1)';

/** By command, then by flag (its long name): the line `--help` shows for it. */
export const COMMAND_LINES: Partial<Record<CommandName, Readonly<Record<string, string>>>> = {
  worker: {
    model: 'model id or alias sonnet, opus, haiku of the runs submitted without --model (overrides MODEL_ID)',
    disallowedTools: 'never run these in any run this worker serves, e.g. "Bash(rm:*)": no run lifts them, bypassPermissions included',
    'permission-mode': `the mode of each run this worker serves that names none (without the flag: default), and the most permissive one any run gets (a run asking for more gets this one); a call the mode would ask about waits for \`agentloop approve\`: ${MODES}`,
  },
  submit: {
    print: 'the prompt of the run is the argument after the flags; submit prints the session id (--wait: the json result)',
    model: "model id or alias sonnet, opus, haiku of this run (default: the worker's model, its --model or MODEL_ID)",
    allowedTools: 'run these without asking, e.g. "Bash(git log:*) Write" (by commas or spaces; the words after the flag up to the next flag)',
    agents: 'subagents of this run, as Claude Code takes them: {"NAME": {"description", "prompt", "tools", "model"}}; the model gets the Agent tool; each child runs as an invocation of its own (AgentChild), in parallel with the others of one reply',
    disallowedTools: 'never run these in this run, e.g. "Bash(rm:*)" (beats --allowedTools; the worker\'s --disallowedTools hold as well)',
    'permission-mode': `the mode of this run (default: the worker's --permission-mode, else default), at most the worker's; a call the mode would ask about waits until \`agentloop approve\` or \`deny\` answers it (or --approval-timeout): ${MODES}`,
  },
};
