/**
 * bench/mcp.ts's side by side with Claude Code (issue 28's "measured"): agentloop's CLI and Claude Code's, each a whole
 * `-p` process (bench/peersSides.ts: the same environment, Claude Code's native binary from `npm ci --prefix
 * bench/peers`), with the same `--mcp-config` (the real server-everything twice, stdio: `every` and `other`) against
 * the same local Messages API server, in interleaved rounds:
 *
 * - start-up: the task's reply is a text; wall to exit, and process start → the first task request at the server (the
 *   request that carries the prompt and both servers' tools, so each side had its servers connected and listed);
 * - a tool call: the first reply asks for `mcp__every__echo` (the tool_use last, then `message_stop`), the second
 *   answers; the reply's end (`message_stop` written) → the next task request (the tool's cost as the model sees it).
 *   A run counts when it exits 0 with the answer and its tool_result text is `Echo: hello`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { everything } from '../test/support/mcp.js';
import { startMessagesServer, type MessagesServer, type ReplyStep, type RequestBody } from '../test/support/messagesServer.js';
import { runSide, type Bench, type SideName } from './peersSides.js';
import { DONE, MARKER } from './peersTask.js';
import { median } from './stats.js';

export type McpScenario = 'start' | 'call';
export const MCP_SIDES = ['agentloop', 'claude'] as const satisfies readonly SideName[];
export type McpSide = (typeof MCP_SIDES)[number];
export const ECHO_TOOL = 'mcp__every__echo';
export const ECHO_MESSAGE = 'hello';

/** What the server saw of one run. */
export interface McpRunLog {
  /** `performance.now()` of each request's arrival, and whether it was the task's (the prompt and the MCP tools). */
  requests: Array<{ at: number; task: boolean }>;
  /** Task request index (0 = the first) → when its reply's `message_stop` was written. */
  replyEnds: number[];
  /** The MCP tools the first task request listed (a side that did not wait for its servers lists fewer). */
  mcpTools: string[];
  /** The text of the tool_result the second task request carried for the echo call, if any. */
  toolResult?: string;
}

export interface McpServer {
  url: string;
  /** Starts recording a new run of `scenario`; `run` numbers its tool_use id. */
  begin(scenario: McpScenario, run: number): McpRunLog;
  close(): Promise<void>;
}

/** The text of a tool_result's content: a string, or its text blocks joined. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`)).join('\n');
}

/** The tool_result in the last user message of `body` (the answer to the echo call). */
export function lastToolResult(body: RequestBody): string | undefined {
  const last = body.messages.at(-1);
  if (!last || last.role !== 'user' || typeof last.content === 'string') return undefined;
  const block = last.content.find((b) => b.type === 'tool_result');
  return block && block.type === 'tool_result' ? resultText(block.content) : undefined;
}

const toolNames = (body: RequestBody) => (body.tools ?? []).map((t) => ('name' in t ? t.name : ''));
/** The task's requests carry the prompt and tools (a side request about the prompt, such as a title, has none). */
const isTask = (body: RequestBody) => toolNames(body).length > 0 && JSON.stringify(body.messages).includes(MARKER);

function replyOf(scenario: McpScenario, turn: number, run: number): ReplyStep {
  if (scenario === 'call' && turn === 0) {
    return {
      content: [
        { type: 'text', text: 'I will call the echo tool.' },
        { type: 'tool_use', id: `toolu_mcp${run}`, name: ECHO_TOOL, input: { message: ECHO_MESSAGE } },
      ],
      stop_reason: 'tool_use',
    };
  }
  return { content: [{ type: 'text', text: `Done. ${DONE}` }], stop_reason: 'end_turn' };
}

/** The local Messages API server of the benchmark: answers the task by `scenario`, anything else with a short text. */
export async function startMcpServer(): Promise<McpServer> {
  let log: McpRunLog = { requests: [], replyEnds: [], mcpTools: [] };
  let scenario: McpScenario = 'start';
  let run = 0;
  const taskOf = new Map<number, number>(); // request index → task turn
  let server: MessagesServer | undefined;
  const step = (body: RequestBody, index: number): ReplyStep => {
    const task = isTask(body);
    log.requests.push({ at: server?.requests[index]?.receivedAt ?? Number.NaN, task });
    if (!task) return { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' };
    const turn = body.messages.filter((m) => m.role === 'assistant').length;
    taskOf.set(index, turn);
    if (turn === 0) log.mcpTools = toolNames(body).filter((n) => n.startsWith('mcp__'));
    else log.toolResult ??= lastToolResult(body);
    return replyOf(scenario, turn, run);
  };
  server = await startMessagesServer({
    onFrame: (request, frame, at) => {
      const turn = taskOf.get(request);
      if (turn !== undefined && (frame.data as { type?: string }).type === 'message_stop') log.replyEnds[turn] = at;
    },
  });
  const refill = () => {
    while ((server?.pending ?? 0) < 50) server?.enqueue(step);
  };
  refill();
  return {
    url: server.url,
    begin(next, n) {
      scenario = next;
      run = n;
      refill();
      server?.requests.splice(0);
      taskOf.clear();
      log = { requests: [], replyEnds: [], mcpTools: [] };
      return log;
    },
    close: () => server?.close() ?? Promise.resolve(),
  };
}

/** Writes the config both sides are given: server-everything twice, as `every` and `other`. */
export function writeMcpConfig(dir: string, marker: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'mcp.json');
  const server = ({ command, args }: ReturnType<typeof everything>) => ({ type: 'stdio', command, args, env: { AGENTLOOP_TEST_MARKER: marker } });
  writeFileSync(path, JSON.stringify({ mcpServers: { every: server(everything(marker)), other: server(everything(marker)) } }, null, 2));
  return path;
}

/** One run's figures, or why it does not count. */
export interface McpRunFigures {
  wallMs: number;
  firstTaskRequestMs: number;
  /** The first reply's `message_stop` → the second task request (the call scenario). */
  toolMs?: number;
  toolResult?: string;
  failure?: string;
}

/** The figures of a run from what the process and the server reported; `spawnAt` is the process's start. */
export function mcpFiguresOf(scenario: McpScenario, run: { spawnAt: number; wallMs: number; failure?: string }, log: McpRunLog): McpRunFigures {
  const tasks = log.requests.filter((r) => r.task);
  const figures: McpRunFigures = { wallMs: run.wallMs, firstTaskRequestMs: (tasks[0]?.at ?? Number.NaN) - run.spawnAt };
  const expected = scenario === 'call' ? 2 : 1;
  const missing = ['mcp__every__', 'mcp__other__'].filter((p) => !log.mcpTools.some((n) => n.startsWith(p)));
  let failure = run.failure;
  if (!failure && tasks.length !== expected) failure = `${tasks.length} task requests, expected ${expected}`;
  if (!failure && missing.length > 0) failure = `the first request lists no tool of ${missing.map((p) => p.slice(5, -2)).join(', ')}`;
  if (scenario === 'call') {
    figures.toolMs = (tasks[1]?.at ?? Number.NaN) - (log.replyEnds[0] ?? Number.NaN);
    if (log.toolResult !== undefined) figures.toolResult = log.toolResult;
    if (!failure && log.toolResult !== `Echo: ${ECHO_MESSAGE}`) failure = `tool_result ${JSON.stringify(log.toolResult ?? null)}`;
  }
  return failure ? { ...figures, failure } : figures;
}

/** The arguments each side is given on top of `-p PROMPT --output-format json --model M`. */
export function mcpArgs(side: McpSide, config: string): { args: string[]; allowed?: string } {
  const common = ['--mcp-config', config, '--strict-mcp-config'];
  return side === 'claude' ? { args: common, allowed: 'mcp__every' } : { args: [...common, '--allowedTools', 'mcp__every'] };
}

export interface McpSideResult {
  side: McpSide;
  runs: McpRunFigures[];
  failures: string[];
  /** Runs made, the warm-up included. */
  attempts: number;
}

/**
 * `rounds` rounds of `scenario` after one uncounted warm-up, each running every side once in an order that rotates
 * from round to round. A failed run is kept as a failure (and logged), never as a figure.
 */
export async function measureMcp(
  scenario: McpScenario,
  sides: readonly McpSide[],
  bench: Bench,
  config: string,
  options: { rounds: number; log: (line: string) => void },
): Promise<McpSideResult[]> {
  const server = await startMcpServer();
  const results = new Map(sides.map((s) => [s, { side: s, runs: [], failures: [], attempts: 0 } as McpSideResult]));
  let n = 0;
  try {
    for (let round = -1; round < options.rounds; round++) {
      const order = sides.map((_, i) => sides[(i + round + 1) % sides.length] as McpSide);
      for (const side of order) {
        const log = server.begin(scenario, ++n);
        const process = await runSide(side, `${MARKER}: use the echo tool.`, bench, server.url, { ...mcpArgs(side, config), timeoutMs: 180_000 });
        const figures = mcpFiguresOf(scenario, process, log);
        const result = results.get(side) as McpSideResult;
        result.attempts += 1;
        const tag = round < 0 ? 'warm-up' : `round ${round + 1}/${options.rounds}`;
        options.log(`mcp (${scenario}) ${tag} ${side}: ${figures.failure ? `FAILED ${figures.failure}` : describe(figures)}`);
        if (figures.failure) result.failures.push(figures.failure);
        else if (round >= 0) result.runs.push(figures);
      }
    }
  } finally {
    await server.close();
  }
  return [...results.values()];
}

function describe(f: McpRunFigures): string {
  const tool = f.toolMs === undefined ? '' : `, reply end → next request ${f.toolMs.toFixed(1)} ms`;
  return `wall ${f.wallMs.toFixed(0)} ms, first task request ${f.firstTaskRequestMs.toFixed(0)} ms${tool}`;
}

/** The medians of a side's counted runs. */
export function mcpMedians(result: McpSideResult): { runs: number; wallMs: number; firstTaskRequestMs: number; toolMs: number } {
  const m = (f: (r: McpRunFigures) => number) => median(result.runs.map(f));
  return { runs: result.runs.length, wallMs: m((r) => r.wallMs), firstTaskRequestMs: m((r) => r.firstTaskRequestMs), toolMs: m((r) => r.toolMs ?? Number.NaN) };
}
