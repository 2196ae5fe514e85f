/**
 * `--output-format stream-json` in Claude Code's shapes: a `system`/`init` line first, the model's replies as
 * `assistant` lines (one per content block: ./assistantLines.ts), tool results as `user` lines, and the result last, every line with
 * `session_id`. agentloop's own events (`transition`, `decision`, `request`, `reply`, `tool_start`, ...) are lines
 * only with `--include-loop-events` (a `transition` line's cause is in `cause`, not `event`: `.event` is a stream_event's);
 * a `reply_refused` line always (no Claude Code line says it). The run's meter gives the result what only the events
 * show.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { RunEvent } from '../../core/events.js';
import type { MessageParam } from '../../core/messages.js';
import { defaultRunConfig } from '../../core/config.js';
import { costOf } from '../../core/pricing.js';
import type { PermissionMode } from '../../permissions/modes.js';
import type { CliOptions } from '../commandLine/args.js';
import { emptyModelUsage, type ModelUsage, type RunFacts } from './output.js';
import { permissionModeOf } from '../setup/permissions.js';
import { jsonLine } from './terminal.js';
import { assistantLines } from './assistantLines.js';
import { publicToolName, toolLookup, type Tool, type ToolLookup } from '../../core/tool.js';
import { apiRetryLine, claudeBlock, modelFallbackLine, statusLine, thinkingTokensLines, userLines } from './claudeLines.js';
import { CLI_MAX_RETRIES } from '../commandLine/sdkFlags.js';
import { compactLinesOf } from './compactLines.js';
import { heldUntilShown, taskLines } from './taskLines.js';

/** What the init line tells about the run. */
export interface InitFacts {
  sessionId: string;
  cwd: string;
  model: string;
  /** The tools the model is offered (their public names are the init line's `tools`). */
  tools: readonly Tool[];
  /** The MCP servers of `--mcp-config` and their states (Claude Code's `{name, status}`). */
  mcpServers: { name: string; status: string }[];
  /** The mode tool calls are judged in (cli/setup/permissions.ts): `bypassPermissions` when every call runs (deny rules aside). */
  permissionMode: PermissionMode;
  /** Where the credentials came from: `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, or `none` (the demo). */
  apiKeySource: string;
  version: string;
  /** The names of the subagents offered (the Agent tool's, listed as Claude Code's init line lists it: `Task`). */
  agents?: string[];
}

/**
 * The init line's facts for a CLI run: the built-in tools offered (`tools`: the conversation's, ../setup/ask.ts) and the MCP
 * servers' tools, credentials from `client`.
 */
export function initFacts(
  options: Pick<CliOptions, 'allowedTools' | 'permissionMode' | 'permissionPromptTool' | 'inputFormat'>,
  cwd: string,
  choice: { model: string; client?: { apiKey?: string; authToken?: string }; addTools?: Tool[]; mcpStates?: { name: string; status: string }[] },
  session: { id: string; tools: readonly Tool[]; agents?: Readonly<Record<string, unknown>> | undefined },
  version: string,
): InitFacts {
  const client = choice.client;
  return {
    ...(session.agents ? { agents: Object.keys(session.agents) } : {}),
    sessionId: session.id,
    cwd,
    model: choice.model,
    tools: [...session.tools, ...(choice.addTools ?? [])],
    mcpServers: (choice.mcpStates ?? []).map(({ name, status }) => ({ name, status })),
    permissionMode: permissionModeOf(options),
    apiKeySource: client?.apiKey ? 'ANTHROPIC_API_KEY' : client?.authToken ? 'ANTHROPIC_AUTH_TOKEN' : 'none',
    version,
  };
}

/** The `system`/`init` line. */
export function initLine(facts: InitFacts) {
  return {
    type: 'system',
    subtype: 'init',
    cwd: facts.cwd,
    session_id: facts.sessionId,
    tools: [...(facts.agents?.length ? ['Task'] : []), ...facts.tools.map(publicToolName)],
    mcp_servers: facts.mcpServers,
    model: facts.model,
    permissionMode: facts.permissionMode,
    slash_commands: [],
    apiKeySource: facts.apiKeySource,
    output_style: 'default',
    agentloop_version: facts.version,
    agents: facts.agents ?? [],
    // Claude Code's keys for what agentloop has none of (no skills, plugins, fast mode or memory files).
    skills: [],
    plugins: [],
    analytics_disabled: true,
    product_feedback_disabled: true,
    memory_paths: {},
    fast_mode_state: 'off',
    uuid: randomUUID(),
  };
}

type PrinterOptions = { includeLoopEvents?: boolean; includePartialMessages?: boolean; maxRetries?: number; cwd?: string };

/**
 * Prints a run's events as stream-json lines through `write` (one JSON text and a newline each), the init line at
 * once. The result line is the caller's: `toJsonResult`.
 */
export function streamJsonPrinter(
  facts: InitFacts,
  write: (line: string) => void,
  options: PrinterOptions = {},
): (event: RunEvent) => void {
  const out = (line: object) => write(jsonLine(line));
  out(initLine(facts));
  return runLines(facts.sessionId, toolLookup(facts.tools), out, { ...options, cwd: facts.cwd });
}

/** The lines of one run's events through `out`: the session's run, or a subagent's (./taskLines.ts gives its `out`). */
function runLines(session_id: string, tools: ToolLookup, out: (line: object) => void, options: PrinterOptions): (event: RunEvent) => void {
  const loop = loopLines(out, session_id, options.includeLoopEvents === true);
  const tasks = heldUntilShown(taskLines(session_id, out, (childOut) => runLines(session_id, tools, childOut, { ...options, includePartialMessages: false }), { tools, cwd: options.cwd ?? process.cwd() }));
  const thinkingTokens = thinkingTokensLines(session_id);
  const turn = turnLines(session_id, out);
  let requesting = false; // a `requesting` status line was written for the model call under way
  // Claude Code's assistant lines carry the message as it started: stop_reason null (the result line has the reason).
  const assistant = assistantLines((head, block, requestId) => {
    const message = { ...head, type: 'message', role: 'assistant', content: [claudeBlock(block, tools)], stop_reason: null, stop_sequence: null, context_management: null };
    out({ type: 'assistant', message, parent_tool_use_id: null, session_id, uuid: randomUUID(), ...(requestId ? { request_id: requestId } : {}) });
    if (block.type === 'tool_use') tasks.shown(block.id);
  });
  return (event) => {
    switch (event.type) {
      case 'text':
        return; // the text is in the assistant lines (and in stream_event lines when asked for)
      case 'thinking': {
        const line = thinkingTokens(event.piece);
        return line ? out(line) : undefined;
      }
      case 'message':
        return turn.message(event);
      case 'tool_result':
        turn.toolResult(event, requesting);
        return loop(event);
      case 'request':
        // With partial messages Claude Code says `requesting` once a model call (not again for its retries).
        if (options.includePartialMessages && !requesting) out(statusLine(session_id, { status: 'requesting' }));
        requesting = true;
        loop(event);
        return;
      case 'reply': {
        const content = turn.replyContent(event.index);
        requesting = false;
        assistant.onReply({ ...(event.id ? { id: event.id } : {}), model: event.model, stop_reason: event.stopReason, usage: event.usage }, content, event.requestId);
        tasks.flush(), turn.flush(true);
        loop(event);
        return;
      }
      case 'stream_event':
        assistant.onStreamEvent(event.event, event.requestId);
        out({ type: 'stream_event', event: claudeStreamEvent(event.event, tools), parent_tool_use_id: null, session_id, uuid: randomUUID() });
        return;
      case 'agent_start': case 'agent_resume':
      case 'agent_event':
      case 'agent_end':
        return requesting ? tasks.hold(event) : tasks.print(event);
      case 'reply_refused':
      case 'retry':
        tasks.flush(), turn.flush(false); // a refused reply keeps nothing: the results of its tools that had started are no line
        if (event.type === 'reply_refused') return loop(event);
        out(event.fallbackFrom !== undefined ? modelFallbackLine(event, session_id) : apiRetryLine(event, options.maxRetries ?? CLI_MAX_RETRIES, session_id));
        loop(event);
        return;
      default:
        for (const line of compactLinesOf(event, session_id)) out(line);
        loop(event);
    }
  };
}

/** agentloop's own events as lines (only with --include-loop-events; a refused reply always). */
function loopLines(out: (line: object) => void, session_id: string, included: boolean): (event: RunEvent) => void {
  return (event) => {
    // A refused reply is reported whatever the flags (it is on stderr too): no Claude Code line says it.
    if (!included && event.type !== 'reply_refused') return;
    if (event.type === 'transition') {
      const { event: cause, ...rest } = event;
      out({ ...rest, cause, session_id });
    } else out({ ...event, session_id });
  };
}

/**
 * The model's message until its `reply` event comes (its assistant lines need the reply's metadata), and the `user`
 * lines of the other messages: Claude Code does not repeat the prompt; each tool result is a line of its own, written
 * as its tool ends, as Claude Code 2.1.197 writes it (two calls at once: the one that ends first has its line first;
 * recorded: test/cli/sdk/claudeCode.json, scenarios `two ... the second ends first`), with the tool's structured
 * result (`tool_use_result`) its `tool_result` event brought. A result that comes while the reply still streams (a
 * read-only tool starts as its block completes) waits for the reply's assistant lines. The turn's message then gives
 * only what was not written yet (results for calls that never ran, a continuation's text).
 */
function turnLines(sessionId: string, out: (line: object) => void) {
  let reply: { index: number; message: MessageParam } | undefined;
  const data = new Map<string, unknown>();
  const written = new Set<string>();
  let held: object[] = [];
  return {
    message(event: Extract<RunEvent, { type: 'message' }>) {
      if (event.origin === 'model') reply = { index: event.index, message: event.message };
      else if (event.origin !== 'prompt') {
        const content = Array.isArray(event.message.content) ? event.message.content.filter((b) => b.type !== 'tool_result' || !written.has(b.tool_use_id)) : event.message.content;
        if (content.length > 0) for (const line of userLines({ ...event.message, content }, sessionId, data)) out(line);
        data.clear();
        written.clear();
      }
    },
    toolResult(event: Extract<RunEvent, { type: 'tool_result' }>, streaming: boolean) {
      if (event.data !== undefined) data.set(event.block.id, event.data);
      const lines = userLines({ role: 'user', content: [event.result] }, sessionId, data);
      written.add(event.block.id);
      if (streaming) held.push(...lines);
      else for (const line of lines) out(line);
    },
    /** The held result lines: written once the reply's assistant lines are (`keep`), or dropped with a refused reply. */
    flush(keep: boolean) {
      if (keep) for (const line of held) out(line);
      held = [];
    },
    /** The content of the reply at `index`, once (empty when its message did not come). */
    replyContent(index: number) {
      const content = reply?.index === index && Array.isArray(reply.message.content) ? reply.message.content : [];
      reply = undefined;
      return content;
    },
  };
}

/** A stream event with the tool's name in Claude Code's spelling (a tool_use block's start). */
function claudeStreamEvent<T>(event: T, tools: ToolLookup): T {
  const e = event as { type?: string; content_block?: unknown };
  return e.type === 'content_block_start' && e.content_block ? { ...event, content_block: claudeBlock(e.content_block, tools) } : event;
}

/**
 * Watches a run's events for what its result reports beyond the final context: the time spent waiting for the model
 * (from each request sent to its reply, or to whatever the machine did next when the call failed), the usage and
 * cost per model (a fallback model is one of its own), the time to the first request and to its first streamed
 * content, and whether a tool was running at the end.
 */
export function runMeter(now: () => number = () => performance.now(), maxTokens?: number) {
  const maxOutputTokens = maxTokens ?? defaultRunConfig.maxTokens;
  const started = now();
  let firstTurn: number | undefined; // the turn count of the first model call: a resumed session's goes on counting
  let callStarted: number | undefined;
  let firstRequest: number | undefined;
  let firstContent: number | undefined;
  let apiMs = 0;
  let running = 0;
  const modelUsage: Record<string, ModelUsage> = {};
  const endCall = () => {
    if (callStarted === undefined) return;
    apiMs += now() - callStarted;
    callStarted = undefined;
  };
  const onTiming = (event: RunEvent) => {
    if (event.type === 'request') {
      firstTurn ??= event.turnCount;
      callStarted = now();
      firstRequest ??= callStarted;
    } else if (firstRequest !== undefined && (event.type === 'text' || event.type === 'stream_event' || event.type === 'reply')) firstContent ??= now();
    if (event.type === 'tool_start') running += 1;
    else if (event.type === 'tool_result') running = Math.max(0, running - 1);
  };
  // Summed when the facts are asked for: not between a fresh process's first tool call and the tool's start.
  const calls: Array<{ model: string; usage: Parameters<typeof costOf>[0] }> = [];
  const count = (event: RunEvent): void => {
    // A subagent's model calls count in the usage per model, as Claude Code's modelUsage counts them; a compaction's too.
    if (event.type === 'agent_event') return count(event.event);
    const call = event.type === 'reply' ? event : event.type === 'compact_boundary' && event.boundary.usage ? { model: event.boundary.model ?? '', usage: event.boundary.usage } : undefined;
    if (call) calls.push({ model: call.model, usage: call.usage });
  };
  const tally = (): void => {
    for (const { model, usage } of calls.splice(0)) {
      const sum = (modelUsage[model] ??= emptyModelUsage(maxOutputTokens));
      sum.inputTokens += usage.input_tokens;
      sum.outputTokens += usage.output_tokens;
      sum.cacheReadInputTokens += usage.cache_read_input_tokens;
      sum.cacheCreationInputTokens += usage.cache_creation_input_tokens;
      sum.costUSD += costOf(usage, model);
    }
  };
  return {
    onEvent(event: RunEvent): void {
      onTiming(event);
      if (event.type === 'reply' || event.type === 'transition') endCall();
      count(event);
    },
    facts(): RunFacts {
      endCall();
      tally();
      const timing = firstRequest === undefined ? {} : { timeToRequestMs: Math.round(firstRequest - started), ...(firstContent === undefined ? {} : { ttftMs: Math.round(firstContent - firstRequest) }) };
      const turns = firstTurn === undefined ? {} : { turnsBefore: firstTurn - 1 };
      return { durationApiMs: Math.round(apiMs), modelUsage, duringTool: running > 0, ...timing, ...turns };
    },
  };
}
