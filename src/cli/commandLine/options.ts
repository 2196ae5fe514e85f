/**
 * Every flag of every command, declared once. The parser (./parse.ts), `--help` per command (./help.ts), the usage
 * errors and the docs' flag table (docs/cli.md, checked by test/cli/commandLine/optionTable.process.test.ts) are all walked from OPTIONS.
 * Adding a flag: a field in `Flags`, an entry in OPTIONS (the compiler asks for it), and the code that reads it.
 */
import { defaultRunConfig } from '../../core/config.js';
import { resolveModel } from '../../core/models.js';
import { DEFAULT_INGRESS } from '../../durable/addresses.js';
import { PERMISSION_MODES, type PermissionMode } from '../../permissions/modes.js';
import { allowWriteNames, envNames, httpUrl, idempotencyKey, nonEmpty, oneOf, portOf, positiveInt, positiveNumber, promptToolOf, publicKeys, restateId, splitRules, UsageError, uuidOf } from './argValues.js';
import { TAKEN_OPTIONS } from './claudeFlags.js';
import { addDirs, CLI_MAX_RETRIES, settingSources, thinkingBudget, thinkingMode, toolNames } from './sdkFlags.js';
import { jsonSchema } from './jsonSchemaValue.js';
import type { Flags } from './flags.js';
import { COMMAND_NAMES, type CommandName, type CommandSpec, type OptionTable } from './optionTable.js';
import { selfCommand } from './self.js';

export type { AnyOption, CommandName } from './optionTable.js';
export { COMMAND_NAMES } from './optionTable.js';

export type { Flags, OutputFormat } from './flags.js';

const DURABLE_CLIENTS: readonly CommandName[] = ['submit', 'result', 'messages', 'view', 'approvals', 'approve', 'deny'];

/** `--permission-mode`: Claude Code's modes (`manual` is `default`); `auto` is refused with the reason. */
function permissionMode(text: string, flag: string): PermissionMode {
  const mode = text === 'manual' ? 'default' : text;
  if (mode === 'auto') {
    throw new UsageError(`${flag} auto needs Claude Code's safety classifier, which agentloop does not have: use ${PERMISSION_MODES.join(', ')}`);
  }
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`${flag} must be one of ${PERMISSION_MODES.join(', ')} (or manual), not "${text}"`);
  }
  return mode as PermissionMode;
}

const model = (text: string, flag: string) => nonEmpty(flag, resolveModel(text));

/** `--mcp-config`: files or JSON texts, none empty. */
function mcpConfigs(texts: readonly string[], flag: string): string[] {
  if (texts.some((text) => text.trim() === '')) throw new UsageError(`${flag} takes a file or JSON text, not an empty value`);
  return texts.map((text) => text.trim());
}

export const OPTIONS: OptionTable<Flags> = {
  print: { flag: 'print', short: 'p', commands: ['run', 'submit'], description: 'run once and print the result, no REPL (json and stream-json imply it); the prompt is the argument after the flags' },
  outputFormat: { flag: 'output-format', argument: 'FORMAT', default: 'text', commands: ['run'], parse: oneOf(['text', 'json', 'stream-json']), description: 'text, json or stream-json' },
  listFormat: {
    flag: 'output-format', argument: 'FORMAT', default: 'text', commands: ['sessions', 'mcp'], description: 'text or json',
    parse: (text) => {
      if (text !== 'text' && text !== 'json') throw new UsageError('--output-format must be text or json here');
      return text;
    },
  },
  inputFormat: { flag: 'input-format', argument: 'FORMAT', commands: ['run'], parse: oneOf(['text', 'stream-json']), description: 'text (default) or stream-json: user messages as JSON lines on stdin' },
  verbose: { flag: 'verbose', commands: ['run'], description: 'text: show the tool calls on stderr; accepted with stream-json' },
  includePartialMessages: { flag: 'include-partial-messages', commands: ['run'], description: "stream-json: also the model's raw stream events (stream_event lines)" },
  includeLoopEvents: { flag: 'include-loop-events', commands: ['run'], description: "stream-json: also agentloop's loop events (their lines: docs/cli.md, stream-json)" },
  permissionPromptTool: {
    flag: 'permission-prompt-tool', argument: 'stdio', commands: ['run'], parse: promptToolOf,
    description: 'stream-json input: ask the host (an Agent SDK program) about what the permission mode would not run (can_use_tool control requests)',
  },
  model: { flag: 'model', argument: 'ID', commands: ['run', 'worker', 'submit'], parse: model, description: 'model id or alias sonnet, opus, haiku (overrides MODEL_ID)' },
  fallbackModel: { flag: 'fallback-model', argument: 'ID', commands: ['run'], parse: model, description: 'model to switch to after 3 overloaded answers in a row (as Claude Code)' },
  systemPrompt: { flag: 'system-prompt', argument: 'TEXT', commands: ['run'], description: 'replace the system prompt' },
  appendSystemPrompt: { flag: 'append-system-prompt', argument: 'TEXT', commands: ['run', 'submit'], description: 'add TEXT to the end of the system prompt' },
  systemPromptFile: { flag: 'system-prompt-file', argument: 'FILE', commands: ['run'], description: "--system-prompt with FILE's text" },
  appendSystemPromptFile: { flag: 'append-system-prompt-file', argument: 'FILE', commands: ['run'], description: "--append-system-prompt with FILE's text" },
  allowedTools: {
    flag: 'allowedTools', aliases: ['allowed-tools'], argument: 'RULES', list: 'variadic', commands: ['run', 'submit'], parse: (texts) => splitRules('--allowedTools', texts),
    description: 'allow only these bash commands, e.g. "Bash(git log:*) Bash(npm test)" (by commas or spaces; the words after the flag up to the next flag)',
  },
  disallowedTools: {
    flag: 'disallowedTools', aliases: ['disallowed-tools'], argument: 'RULES', list: 'variadic', commands: ['run', 'submit', 'worker'], parse: (texts) => splitRules('--disallowedTools', texts),
    description: 'never run these, e.g. "Bash(rm:*)" (beats --allowedTools; a worker\'s hold for every run it serves)',
  },
  tools: {
    flag: 'tools', argument: 'TOOLS', list: 'variadic', commands: ['run'], parse: toolNames,
    description: 'built-in tools offered: default, "" (none) or names by commas or spaces; agentloop has Bash (MCP tools stay)',
  },
  permissionMode: {
    flag: 'permission-mode', argument: 'MODE', commands: ['run', 'submit', 'worker'], parse: permissionMode,
    description: 'what runs without an allow rule (the rest is asked in the REPL, denied with -p): default (read-only commands; the mode without this flag; also manual, dontAsk), acceptEdits (and mkdir, touch, mv, cp inside the working directory), plan (read-only only), bypassPermissions (everything; as root only with IS_SANDBOX=1)',
  },
  dangerouslySkipPermissions: { flag: 'dangerously-skip-permissions', commands: ['run'], description: '--permission-mode bypassPermissions: every call runs (as root only with IS_SANDBOX=1)' },
  maxTurns: { flag: 'max-turns', argument: 'N', commands: ['run', 'submit'], parse: (text, flag) => positiveInt(flag, text), description: `stop after N model calls (default ${defaultRunConfig.maxTurns})` },
  maxBudgetUsd: { flag: 'max-budget-usd', argument: 'AMOUNT', commands: ['run'], parse: (text, flag) => positiveNumber(flag, text), description: 'stop once the run has cost AMOUNT dollars' },
  contextWindow: {
    flag: 'context-window', argument: 'N', commands: ['run'], parse: (text, flag) => positiveInt(flag, text, 1000),
    description: "the model's context window in tokens, for a gateway's model (default: the model's known one, 200000 for Claude; also AGENTLOOP_CONTEXT_WINDOW): the history is compacted before a request would pass it",
  },
  maxTokens: { flag: 'max-tokens', argument: 'N', commands: ['run', 'submit'], parse: (text, flag) => positiveInt(flag, text), description: `max_tokens of each request (default ${defaultRunConfig.maxTokens})` },
  maxRetries: { flag: 'max-retries', argument: 'N', commands: ['run', 'submit'], parse: (text, flag) => positiveInt(flag, text, 0), description: `retries of a failed model call (default ${CLI_MAX_RETRIES} in a run, as Claude Code's; ${defaultRunConfig.maxRetries} for submit)` },
  cwd: { flag: 'cwd', argument: 'DIR', commands: ['run', 'worker'], description: 'working directory of the tools (default: the current one)' },
  sandbox: { flag: 'sandbox', commands: ['run', 'worker'], description: 'run bash commands under bubblewrap: read-only system, no network, credentials, agent state, .env files and sockets hidden' },
  allowEnv: { flag: 'allow-env', argument: 'NAME', list: 'repeat', commands: ['run', 'worker'], parse: envNames, description: 'pass this credential variable (*_API_KEY, *_TOKEN, ...) to commands (repeat the flag for more)' },
  allowWrite: {
    flag: 'allow-write', argument: 'NAME', list: 'repeat', commands: ['run', 'worker'], parse: allowWriteNames,
    description: 'with --sandbox: let commands write NAME, one of the files that run later (.bashrc, .profile, .git/hooks, .git for all of .git, .vscode, ...), kept read-only by default even in the working directory (repeat the flag, or NAME,NAME)',
  },
  mcpConfig: {
    flag: 'mcp-config', argument: 'FILE|JSON', list: 'repeat', commands: ['run', 'worker'], parse: mcpConfigs,
    description: "MCP servers to give the model the tools of (Claude Code's format; repeatable); a worker's servers serve every run",
  },
  strictMcpConfig: { flag: 'strict-mcp-config', commands: ['run'], description: 'use only the servers of --mcp-config, none of .mcp.json and ~/.claude.json' },
  demo: { flag: 'demo', commands: ['run'], description: 'play the two-turn example with a scripted model, no API key needed' },
  mistake: { flag: 'mistake', argument: 'NAME', commands: ['run'], parse: (text) => text.trim(), description: "with --demo: swap one action of the loop for a beginner's mistake and show what goes wrong (list: the mistakes)" },
  resume: { flag: 'resume', short: 'r', argument: 'ID', commands: ['run'], parse: (text, flag) => nonEmpty(flag, text, ` (a session id: see ${selfCommand()} sessions)`), description: 'go on with session ID (a unique prefix is enough); with a PROMPT, ask it next' },
  continue: { flag: 'continue', short: 'c', commands: ['run'], description: 'go on with the newest session of this directory' },
  forkSession: { flag: 'fork-session', commands: ['run'], description: 'with --resume/--continue: go on in a new session, the old one stays as it was' },
  waitForSession: {
    flag: 'wait-for-session', commands: ['run'],
    description: 'with --resume/--continue: if another run is writing the session, wait until it ends (without it, that is refused at once, exit 2)',
  },
  sessionId: { flag: 'session-id', argument: 'UUID', commands: ['run'], parse: (text, flag) => uuidOf(flag, text), description: 'the id of the new session' },
  view: { flag: 'view', commands: ['run'], description: 'show the run live in the local step-through viewer (prints its URL)' },
  step: { flag: 'step', commands: ['run'], description: 'stop the run before each model request and each tool until Next in the viewer (implies --view)' },
  lang: {
    flag: 'lang', argument: 'en|zh', commands: ['run', 'view'], parse: oneOf(['en', 'zh']),
    description: "the lesson's language in the viewer and the demo's words (default: the browser's languages; the demo: $LANG)",
  },
  inspect: { flag: 'inspect', commands: ['run'], description: 'show the machine live in the Stately inspector (prints its URL; needs internet)' },
  port: { flag: 'port', argument: 'N', commands: ['run', 'view'], parse: (text) => portOf(text), description: 'port of the viewer / inspector page (default: any free port)' },
  compare: { flag: 'compare', commands: ['view'], description: 'two sessions side by side (view --compare A B), the first diverging request marked' },
  restate: { flag: 'restate', argument: 'URL', default: DEFAULT_INGRESS, commands: DURABLE_CLIENTS, parse: httpUrl, description: "Restate's ingress (view: step through a durable run)" },
  admin: { flag: 'admin', argument: 'URL', commands: DURABLE_CLIENTS, parse: httpUrl, description: "Restate's admin API, where runs are read (default: the --restate host, port 9070)" },
  idempotencyKey: {
    flag: 'idempotency-key', argument: 'KEY', commands: ['submit'], parse: idempotencyKey,
    description: 'Restate starts one run per key: a submit retried with the same key does not start another (without --session-id, the session id comes from the key)',
  },
  wait: { flag: 'wait', commands: ['submit'], description: 'wait for the run to end and print its json result' },
  approvalTimeout: {
    flag: 'approval-timeout', argument: 'SECONDS', commands: ['submit'], parse: (text, flag) => positiveNumber(flag, text),
    description: 'a call of the run that waits for approval is denied after SECONDS without an answer (the model is told)',
  },
  reason: { flag: 'reason', argument: 'TEXT', commands: ['deny'], parse: (text, flag) => nonEmpty(flag, text), description: 'why the call is denied: what the model is told' },
  submitSessionId: { flag: 'session-id', argument: 'ID', commands: ['submit'], parse: (text, flag) => restateId(flag, text), description: 'the session to run in (default: a new UUID); a later submit with the same id goes on with it' },
  workerPort: { flag: 'port', argument: 'N', default: 9080, commands: ['worker', 'balancer'], parse: (text) => portOf(text), description: 'port to serve on (0: any free port)' },
  host: { flag: 'host', argument: 'HOST', default: '127.0.0.1', commands: ['worker', 'balancer'], description: 'interface to listen on' },
  register: { flag: 'register', argument: 'ADMIN_URL', commands: ['worker', 'balancer'], parse: httpUrl, description: "register the address with Restate's admin API at ADMIN_URL" },
  advertise: { flag: 'advertise', argument: 'URL', commands: ['worker'], parse: httpUrl, description: "with --register: the address to register (a load balancer's); default the worker's own" },
  replace: { flag: 'replace', commands: ['worker', 'balancer'], description: 'with --register: register even though another address serves AgentSession (new runs come here)' },
  identityKeys: { flag: 'identity-key', argument: 'KEY', list: 'repeat', commands: ['worker'], parse: publicKeys, description: "Restate's request-signing public key (publickeyv1_...): unsigned requests are refused (repeat the flag for more)" },
  backends: {
    flag: 'backend', argument: 'URL', list: 'repeat', commands: ['balancer'], parse: (texts, flag) => texts.map((text) => httpUrl(text, flag)),
    description: "a worker's address (repeat the flag, once for each worker)",
  },
  // What the Claude Agent SDK passes (./sdkFlags.ts; docs/agent-sdk.md): honoured, or refused with the reason.
  settingSources: { flag: 'setting-sources', argument: 'LIST', list: 'repeat', commands: ['run', 'mcp'], parse: settingSources, description: "Claude Code's settings files to read: user, project, local (by commas; default all three): their permissions, MCP servers and approvals" },
  settings: { flag: 'settings', argument: 'FILE|JSON', commands: ['run'], description: "more of Claude Code's settings, over those of its files: a file, or the JSON itself (permissions, env, model: docs/cli.md#claude-codes-settings-files)" },
  addDir: { flag: 'add-dir', argument: 'DIR', list: 'repeat', commands: ['run'], parse: addDirs, description: "another directory the tools work in: acceptEdits' file commands run inside it too (repeat the flag for more)" },
  awaitInitialize: { flag: 'await-initialize', commands: ['run'], description: "stream-json input: the Agent SDK's initialize comes first, with the MCP servers to start (answered before any turn)" },
  allowDangerouslySkipPermissions: { flag: 'allow-dangerously-skip-permissions', commands: ['run'], description: 'let a control request switch to bypassPermissions, as Claude Code (as root only with IS_SANDBOX=1)' },
  noSessionPersistence: { flag: 'no-session-persistence', commands: ['run'], description: 'save no transcript of this run (it cannot be resumed)' },
  thinking: { flag: 'thinking', argument: 'MODE', commands: ['run'], parse: thinkingMode, description: 'adaptive (enabled: the same) or disabled (default); beats --max-thinking-tokens' },
  thinkingDisplay: { flag: 'thinking-display', argument: 'DISPLAY', commands: ['run'], parse: oneOf(['summarized', 'omitted']), description: 'summarized, or omitted (signature, no text)' },
  includeHookEvents: {
    flag: 'include-hook-events', commands: ['run'],
    description: "taken: no lines, as Claude Code writes none for the Agent SDK's hooks (the only ones agentloop runs)",
  },
  jsonSchema: { flag: 'json-schema', argument: 'SCHEMA', commands: ['run'], parse: jsonSchema, description: 'structured output: the model answers through a StructuredOutput tool checked against this JSON Schema (the result\'s structured_output)' },
  maxThinkingTokens: {
    flag: 'max-thinking-tokens', argument: 'N', commands: ['run'], parse: thinkingBudget,
    description: 'thinking budget (at least 1024; 0: off), "on" for adaptive models; max_tokens N + 8000 unless given',
  },
  // Claude Code's other flags: honoured where agentloop can; the rest taken with one line on stderr (./claudeFlags.ts).
  ...TAKEN_OPTIONS,
  help: { flag: 'help', short: 'h', commands: COMMAND_NAMES, description: 'show this help' },
  version: { flag: 'version', short: 'v', commands: ['run'], description: 'print the version' },
};

/** What each command is, for `--help`. */
export const COMMANDS: Record<CommandName, CommandSpec> = {
  run: {
    usage: ['[options] [PROMPT]', '-p [options] "PROMPT"', '--demo [options]', '--demo --mistake NAME'],
    summary: 'start a REPL (asking PROMPT first, if given); with -p run once and print the result (piped stdin: the prompt, or context after it); --demo: an offline demo with a scripted model; --mistake: the demo with a beginner\'s mistake in the loop',
  },
  sessions: { usage: ['sessions [options]'], summary: 'list saved sessions (newest first)' },
  mcp: {
    usage: ['mcp list [options]', 'mcp get NAME [options]'],
    summary: "the MCP servers of Claude Code's scopes (~/.claude.json, .mcp.json), each with its scope, transport and health (started, its tools listed, stopped): docs/mcp.md",
  },
  view: {
    usage: ['view [ID] [options]', 'view --compare A B', 'view --restate URL ID'],
    summary: 'step through a session in the browser (default: the newest here); two side by side; or a durable run',
  },
  worker: { usage: ['worker [options]'], summary: 'serve durable runs for Restate (docs/durable.md)' },
  balancer: {
    usage: ['balancer --backend URL... [options]'],
    summary: 'one address for several workers (an HTTP/2 balancer Restate can reach them through: docs/durable.md)',
  },
  submit: { usage: ['submit [options] -p "PROMPT"'], summary: 'start a durable run; prints its id (--wait: the json result)' },
  result: { usage: ['result ID [options]'], summary: "a durable run's json result (exit 3: still running)" },
  messages: { usage: ['messages ID [options]'], summary: "a durable run's messages (JSON)" },
  approvals: { usage: ['approvals [options]'], summary: 'the calls of durable runs that wait for approval: session, tool_use id, since when, the call' },
  approve: { usage: ['approve ID TOOL_USE_ID [options]'], summary: "allow a durable run's waiting call: it runs" },
  deny: { usage: ['deny ID TOOL_USE_ID [--reason TEXT] [options]'], summary: "deny a durable run's waiting call: the model is told why" },
};
