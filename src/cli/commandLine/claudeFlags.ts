/**
 * Claude Code 2.1.197's long options that agentloop has no feature behind (no plugins, IDE, Chrome, Remote
 * Control, worktrees, effort, beta headers, Files API): each is taken, as Claude Code takes it, with the nearest
 * meaning agentloop has, and one line on stderr says what became of it (`noteOf`), so that nothing is silently
 * ignored and a script written for `claude` still runs. The flags agentloop honours (`--bare`, `--name`, `--debug`,
 * `--debug-file`, `--safe-mode`, `--replay-user-messages`, ...) are read where they act.
 */
import { UsageError } from './argValues.js';
import type { Flags } from './flags.js';
import { agentsOfJson } from './agentsJson.js';
import type { OptionTable } from './optionTable.js';

/** What agentloop does with each taken flag, in the words of its stderr line (`agentloop: --FLAG: ...`). */
export const TAKEN: Readonly<Record<string, string>> = {
  agent: 'agentloop has no agent definitions: the session runs as the main agent',
  'ax-screen-reader': "agentloop's terminal output is plain lines already (NO_COLOR=1 turns its colours off)",
  background: 'agentloop has no background agents: the session runs in the foreground',
  betas: 'agentloop sends no beta headers: these are not sent',
  brief: 'agentloop has no SendUserMessage tool: it is not offered',
  chrome: 'agentloop has no Chrome integration: none is started',
  effort: 'agentloop sends no effort setting: the model answers at its default',
  file: 'agentloop does not download Files API resources: none is fetched',
  'from-pr': 'agentloop keeps no pull-request links: a new session starts',
  ide: 'agentloop connects to no IDE',
  'plugin-dir': 'agentloop has no plugins: none is loaded',
  'plugin-url': 'agentloop has no plugins: none is fetched',
  'prompt-suggestions': 'agentloop makes no prompt suggestions: no prompt_suggestion message comes',
  'remote-control': 'agentloop has no Remote Control: the session is local only',
  'remote-control-session-name-prefix': 'agentloop has no Remote Control: the prefix is not used',
  tmux: 'agentloop makes no worktree, so no tmux session either',
  worktree: 'agentloop makes no git worktree: the session runs in the working directory',
};

/** The stderr line of a taken flag. */
export const noteOf = (flag: string): string => `agentloop: --${flag}: ${TAKEN[flag] ?? 'taken, with no effect in agentloop'}`;

/** A taken flag's value: kept as given (an empty one refused), so that a bad one still reads as Claude Code's would. */
export function takenValue(text: string, flag: string): string {
  if (text.trim() === '') throw new UsageError(`${flag} needs a value`);
  return text;
}

/** A taken list flag's values. */
export function takenValues(texts: readonly string[], flag: string): string[] {
  return texts.map((text) => takenValue(text, flag));
}

/** `--agents JSON`: its agents are checked here (a bad one is a usage error: ../setup/agents.ts) and read where the session starts. */
export function agentsJson(text: string, flag: string): string {
  agentsOfJson(text, flag);
  return text;
}

/** `--name NAME`: a session's display name (its label in `agentloop sessions`), one line of at most 200 characters. */
export function sessionName(text: string, flag: string): string {
  const name = text.replace(/[\x00-\x1f\x7f-\x9f]/g, '').trim();
  if (name === '') throw new UsageError(`${flag} needs a name`);
  return [...name].slice(0, 200).join('');
}

type TakenKey = 'agents' | 'axScreenReader' | 'background' | 'brief' | 'chrome' | 'file' | 'fromPr' | 'ide' | 'pluginUrl' | 'promptSuggestions' | 'remoteControl' | 'remoteControlSessionNamePrefix' | 'tmux' | 'worktree' | 'effort' | 'betas' | 'agent' | 'pluginDir' | 'bare' | 'name' | 'debug' | 'debugFile' | 'disableSlashCommands' | 'excludeDynamicSystemPromptSections' | 'replayUserMessages' | 'safeMode' | 'noChrome';

/** The option table's entries of these flags, honoured and taken (./options.ts spreads them into OPTIONS). */
export const TAKEN_OPTIONS: Pick<OptionTable<Flags>, TakenKey> = {
  bare: { flag: 'bare', commands: ['run'], description: 'minimal mode, as Claude Code: no CLAUDE.md read (give context with --system-prompt, --append-system-prompt, --mcp-config)' },
  name: { flag: 'name', short: 'n', argument: 'NAME', commands: ['run'], parse: sessionName, description: "the session's display name (its label in `sessions`)" },
  debug: { flag: 'debug', short: 'd', optionalValue: true, commands: ['run'], description: "debug lines on stderr: agentloop's loop events as JSON lines (a =FILTER is not applied)" },
  debugFile: { flag: 'debug-file', argument: 'PATH', commands: ['run'], parse: takenValue, description: "the debug lines (--debug's) appended to PATH instead of stderr" },
  disableSlashCommands: { flag: 'disable-slash-commands', commands: ['run'], description: 'no skills: agentloop has none (the REPL keeps its own commands, as Claude Code)' },
  excludeDynamicSystemPromptSections: {
    flag: 'exclude-dynamic-system-prompt-sections', commands: ['run'],
    description: "the default system prompt's per-machine part (the working directory) goes into the first user message instead (not with --system-prompt)",
  },
  replayUserMessages: { flag: 'replay-user-messages', commands: ['run'], description: 'stream-json input and output: each user message read is written back as a user line (isReplay)' },
  safeMode: { flag: 'safe-mode', commands: ['run'], description: "no customizations: --bare, and none of the scopes' MCP servers (--strict-mcp-config)" },
  noChrome: { flag: 'no-chrome', commands: ['run'], description: 'no Chrome integration (agentloop has none)' },
  agents: { flag: 'agents', argument: 'JSON', commands: ['run', 'submit'], parse: agentsJson, description: 'subagents, as Claude Code takes them: {"NAME": {"description", "prompt", "tools", "model"}}; the model gets the Agent tool' },
  axScreenReader: { flag: 'ax-screen-reader', commands: ['run'], description: 'taken, one line on stderr: the output is plain lines already' },
  background: { flag: 'background', aliases: ['bg'], commands: ['run'], description: 'taken, one line on stderr: the session runs in the foreground' },
  brief: { flag: 'brief', commands: ['run'], description: 'taken, one line on stderr: no SendUserMessage tool' },
  chrome: { flag: 'chrome', commands: ['run'], description: 'taken, one line on stderr: no Chrome integration' },
  file: { flag: 'file', argument: 'SPECS', list: 'variadic', commands: ['run'], parse: takenValues, description: 'taken, one line on stderr: no Files API downloads' },
  fromPr: { flag: 'from-pr', optionalValue: true, commands: ['run'], description: 'taken, one line on stderr: no pull-request links (a new session)' },
  ide: { flag: 'ide', commands: ['run'], description: 'taken, one line on stderr: no IDE' },
  pluginUrl: { flag: 'plugin-url', argument: 'URL', list: 'repeat', commands: ['run'], parse: takenValues, description: 'taken, one line on stderr: no plugins' },
  promptSuggestions: { flag: 'prompt-suggestions', optionalValue: true, commands: ['run'], description: 'taken, one line on stderr: no prompt suggestions' },
  remoteControl: { flag: 'remote-control', optionalValue: true, commands: ['run'], description: 'taken, one line on stderr: no Remote Control' },
  remoteControlSessionNamePrefix: { flag: 'remote-control-session-name-prefix', argument: 'PREFIX', commands: ['run'], parse: takenValue, description: 'taken, one line on stderr: no Remote Control' },
  tmux: { flag: 'tmux', optionalValue: true, commands: ['run'], description: 'taken, one line on stderr: no worktree' },
  worktree: { flag: 'worktree', short: 'w', optionalValue: true, commands: ['run'], description: 'taken, one line on stderr: the session runs in the working directory' },
  effort: { flag: 'effort', argument: 'LEVEL', commands: ['run'], parse: takenValue, description: 'taken, one line on stderr: no effort setting' },
  betas: { flag: 'betas', argument: 'LIST', commands: ['run'], parse: takenValue, description: 'taken, one line on stderr: no beta headers' },
  agent: { flag: 'agent', argument: 'NAME', commands: ['run'], parse: takenValue, description: 'taken, one line on stderr: no agent definitions' },
  pluginDir: { flag: 'plugin-dir', argument: 'DIR', list: 'repeat', commands: ['run'], parse: takenValues, description: 'taken, one line on stderr: no plugins' },
};
