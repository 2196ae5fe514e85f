/**
 * One Agent SDK program run against an engine (agentloop's built CLI, or Claude Code's native binary), and how a run
 * is measured. The program is the same for both: `query()` with a prompt, one tool round trip through `Bash`, partial
 * messages off, `maxTurns`. The SDK spawns its engine from `pathToClaudeCodeExecutable`; here that is a small shell
 * wrapper per engine that `exec`s GNU time (`/usr/bin/time`, as bench/peersSides.ts measures a peer), which runs the
 * engine exactly as the SDK would (`node dist/cli/main.js ARGS`, or `claude.exe ARGS`) and writes the engine's CPU
 * time and peak RSS (`%M`: the largest resident set of the engine and the processes it waited for) when it exits.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { startMessagesServer, type MessagesServer, type RequestBody, type ReplyStep } from '../test/support/messagesServer.js';

export const ENGINES = ['agentloop', 'claude'] as const;
export type EngineName = (typeof ENGINES)[number];

const root = fileURLToPath(new URL('..', import.meta.url));
export const AGENTLOOP_MAIN = join(root, 'dist', 'cli', 'main.js');
export const CLAUDE_EXE = join(root, 'bench', 'peers', 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');
export const MODEL = 'claude-sonnet-4-5';
/** In the prompt: tells the program's requests from an engine's own (titles, quota checks). */
const MARKER = 'ENGINE-BENCH';
/** The final answer the mock gives; both engines' results must be exactly this. */
export const ANSWER = 'The folder holds notes.txt and data.csv. ENGINE-BENCH-DONE';
export const PROMPT = `${MARKER}: list the files here.`;
export const COMMAND = 'ls -la';
export const MAX_TURNS = 3;

export interface EngineRun {
  engine: EngineName;
  /** `query()` called → its last message (the result) received. */
  wallMs: number;
  /** `query()` called → the iteration ended (the engine has exited). */
  endMs: number;
  /** `query()` called → the first request at the mock (the SDK's spawn and the engine's start-up). */
  firstRequestMs: number;
  /** The engine's user + system CPU time (GNU time), ms. */
  cpuMs: number;
  /** The engine's peak RSS (GNU time's %M), MB. */
  peakRssMb: number;
  /** Requests the mock saw that were not the program's (an engine's own). */
  otherRequests: number;
  result?: string;
  /** The tool_result text the engine sent back to the model after running the command. */
  toolResult?: string;
  /** Why the run does not count. */
  failure?: string;
}

export interface EngineBench {
  dir: string;
  workspace: string;
  wrappers: Record<EngineName, string>;
  homes: Record<EngineName, string>;
}

/** A folder with the workspace the command lists, a home per engine, and each engine's wrapper. */
export function prepareEngines(dir: string): EngineBench {
  // A folder of its own around the workspace: `ls -la` lists `..`, whose time must not change as the runs write in `dir`.
  const workspace = join(dir, 'site', 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'notes.txt'), 'notes\n');
  writeFileSync(join(workspace, 'data.csv'), 'a,b\n1,2\n');
  const commands: Record<EngineName, string> = { agentloop: `'${process.execPath}' '${AGENTLOOP_MAIN}'`, claude: `'${CLAUDE_EXE}'` };
  const wrappers = {} as Record<EngineName, string>;
  const homes = {} as Record<EngineName, string>;
  for (const engine of ENGINES) {
    wrappers[engine] = join(dir, `engine-${engine}`);
    writeFileSync(wrappers[engine], `#!/bin/sh\nexec /usr/bin/time -f '%e %U %S %M' -o "$ENGINE_BENCH_TIME" ${commands[engine]} "$@"\n`);
    chmodSync(wrappers[engine], 0o755);
    homes[engine] = join(dir, `home-${engine}`);
    mkdirSync(homes[engine], { recursive: true });
  }
  return { dir, workspace, wrappers, homes };
}

/** The text of the tool_result blocks in a request's last message. */
function toolResultText(body: RequestBody): string {
  const last = body.messages.at(-1);
  if (!last || typeof last.content === 'string') return '';
  return last.content
    .flatMap((b) => (b.type === 'tool_result' ? [b] : []))
    .map((b) => (typeof b.content === 'string' ? b.content : (b.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('')))
    .join('\n');
}

export interface EngineServer {
  server: MessagesServer;
  /** Starts a new run's log: the tool_result text seen, the count of other requests. */
  begin(): { toolResult?: string; other: number };
  close(): Promise<void>;
}

/** The mock: the program's first request gets a `Bash` call of `ls -la`, the second the answer; others get "ok". */
export async function startEngineServer(): Promise<EngineServer> {
  let log: { toolResult?: string; other: number } = { other: 0 };
  const step = (body: RequestBody): ReplyStep => {
    const tool = (body.tools ?? []).map((t) => ('name' in t ? t.name : '')).find((n) => /^bash$/i.test(n));
    if (tool === undefined || !JSON.stringify(body.messages).includes(MARKER)) {
      log.other += 1;
      return { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' };
    }
    if (body.messages.length === 1) {
      return {
        content: [{ type: 'text', text: 'I will list the files.' }, { type: 'tool_use', id: `toolu_engine_${Date.now()}`, name: tool, input: { command: COMMAND } }],
        stop_reason: 'tool_use',
      };
    }
    log.toolResult = toolResultText(body);
    return { content: [{ type: 'text', text: ANSWER }], stop_reason: 'end_turn' };
  };
  const server = await startMessagesServer();
  const refill = () => {
    while (server.pending < 50) server.enqueue(step);
  };
  refill();
  return {
    server,
    begin() {
      refill();
      server.requests.splice(0);
      log = { other: 0 };
      return log;
    },
    close: () => server.close(),
  };
}

/** Runs the program once against `engine`; resolves with its figures, or a failure saying why it does not count. */
export async function runEngine(engine: EngineName, bench: EngineBench, mock: EngineServer, timeoutMs = 120_000): Promise<EngineRun> {
  const timeFile = join(bench.dir, `time-${engine}.txt`);
  rmSync(timeFile, { force: true });
  const log = mock.begin();
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: bench.homes[engine],
    AGENTLOOP_HOME: join(bench.homes[engine], '.agentloop'),
    ANTHROPIC_BASE_URL: mock.server.url,
    ANTHROPIC_API_KEY: 'sk-ant-engine-bench',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    NO_COLOR: '1',
    ENGINE_BENCH_TIME: timeFile,
  };
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const messages: SDKMessage[] = [];
  let wallMs = Number.NaN;
  let thrown: string | undefined;
  const start = performance.now();
  try {
    const options = {
      pathToClaudeCodeExecutable: bench.wrappers[engine],
      cwd: bench.workspace,
      env,
      model: MODEL,
      maxTurns: MAX_TURNS,
      allowedTools: ['Bash'],
      includePartialMessages: false,
      abortController: abort,
    };
    for await (const message of query({ prompt: PROMPT, options })) {
      messages.push(message);
      wallMs = performance.now() - start;
    }
  } catch (error) {
    thrown = String(error).slice(0, 300);
  } finally {
    clearTimeout(timer);
  }
  const endMs = performance.now() - start;
  const firstRequestMs = (mock.server.requests[0]?.receivedAt ?? Number.NaN) - start;
  return { engine, wallMs, endMs, firstRequestMs, ...timeOf(timeFile), otherRequests: log.other, ...outcome(messages, log.toolResult, thrown) };
}

/** GNU time's line: `%e %U %S %M` (seconds, seconds, seconds, KB). */
function timeOf(file: string): { cpuMs: number; peakRssMb: number } {
  if (!existsSync(file)) return { cpuMs: Number.NaN, peakRssMb: Number.NaN };
  const [, user = 'NaN', sys = 'NaN', rssKb = 'NaN'] = readFileSync(file, 'utf8').trim().split('\n').at(-1)!.split(' ');
  return { cpuMs: (Number(user) + Number(sys)) * 1000, peakRssMb: Number(rssKb) / 1024 };
}

/** The run's result and tool_result, and why it does not count if it does not. */
function outcome(messages: SDKMessage[], toolResult: string | undefined, thrown: string | undefined): Pick<EngineRun, 'result' | 'toolResult' | 'failure'> {
  const last = messages.at(-1);
  const result = last?.type === 'result' && last.subtype === 'success' && !last.is_error ? last.result : undefined;
  const failure =
    thrown !== undefined
      ? `the query threw: ${thrown}`
      : result === undefined
        ? `no success result: ${JSON.stringify(last ?? null).slice(0, 300)}`
        : result !== ANSWER
          ? `the result is not the mock's answer: ${result.slice(0, 200)}`
          : !toolResult?.includes('notes.txt') || !toolResult.includes('data.csv')
            ? `the tool_result does not list the files: ${JSON.stringify(toolResult ?? null).slice(0, 200)}`
            : undefined;
  return { ...(result !== undefined ? { result } : {}), ...(toolResult !== undefined ? { toolResult } : {}), ...(failure ? { failure } : {}) };
}
