/**
 * The peers benchmark's task and its server: what the scripted model answers in each scenario, how fast it streams,
 * and what the server records of each run (when the first request came in, when each tool_use block ended, when each
 * reply ended). The server runs in the harness's process; the sides are other processes, so answering costs them
 * nothing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  startMessagesServer,
  type MessagesServer,
  type ReplyStep,
  type RequestBody,
  type ScriptedBlock,
  type SseFrame,
} from '../test/support/messagesServer.js';

/** In the prompt of every run: tells the task's requests from a side's other requests (titles, quota checks). */
export const MARKER = 'BENCH-TASK';
/** In the last reply's text: a side that prints it finished the task. */
export const DONE = 'BENCH-DONE';

export interface ScenarioSpec {
  name: string;
  title: string;
  prompt: string;
  /** Model calls of the task (the last one answers text). */
  turns: number;
  /** The reply to the task's request number `turn` (0-based), for a side whose bash tool is named `tool`. */
  reply(turn: number, tool: string, run: number): ReplyStep;
  /** Pace of the server: ms before each frame. */
  framePause?: (frame: SseFrame, position: number) => number;
  deltaChars?: number;
}

const WORDS = 'the loop reads each file once and keeps what it learns about the module so that the next step can use it'.split(' ');

/** `tokens` tokens (about four characters each) of plain prose. */
export function prose(tokens: number, seed = 0): string {
  const words: string[] = [];
  let chars = 0;
  for (let i = 0; chars < tokens * 4; i++) {
    const word = WORDS[(i * 7 + seed) % WORDS.length] as string;
    words.push(word);
    chars += word.length + 1;
  }
  return `${words.join(' ')}.`;
}

const toolUse = (id: string, name: string, command: string): ScriptedBlock => ({ type: 'tool_use', id, name, input: { command } });

/** (a) Two model calls: a tool_use of `ls -la src` last in the reply, then the answer. The server answers at once. */
export const scenarioA: ScenarioSpec = {
  name: 'a',
  title: 'two-turn `ls` task, server answers at once',
  prompt: `${MARKER}: list the files here.`,
  turns: 2,
  reply: (turn, tool, run) =>
    turn === 0
      ? { content: [{ type: 'text', text: 'I will list the files.' }, toolUse(`toolu_a${run}`, tool, 'ls -la src')], stop_reason: 'tool_use' }
      : { content: [{ type: 'text', text: `There are 60 packages in src. ${DONE}` }], stop_reason: 'end_turn' },
};

/** The read-only commands of reply `turn` of (b): 2 on even turns, 3 on odd ones; each names its turn, so its start can be told apart. */
export function commandsOf(turn: number): string[] {
  const commands = [`grep -rn needle${turn} src`, `find src -name mod${turn}.ts`];
  if (turn % 2 === 1) commands.push(`ls -la src/pkg${turn}`);
  return commands;
}

export const TIME_TO_FIRST_TOKEN_MS = 500;
export const TOKENS_PER_SECOND = 60;

/** ms a frame takes to produce at the pace of (b): the time to first token before the first, then 60 tokens/s. */
export function realPace(frame: SseFrame, position: number): number {
  if (position === 0) return TIME_TO_FIRST_TOKEN_MS;
  const data = frame.data as { type?: string; delta?: { text?: string; partial_json?: string } };
  if (data.type !== 'content_block_delta') return 0;
  const chars = (data.delta?.text ?? data.delta?.partial_json ?? '').length;
  return ((chars / 4) * 1000) / TOKENS_PER_SECOND;
}

/**
 * (b) Ten model calls at a real model's pace; each of the first nine replies holds a sentence, 2–3 read-only tool calls
 * and then a paragraph more (the tools come early in the reply); the tenth answers.
 */
export const scenarioB: ScenarioSpec = {
  name: 'b',
  title: 'ten turns at a real model’s pace, 2–3 read-only tools early in each reply',
  prompt: `${MARKER}: find where the needles are in src/.`,
  turns: 10,
  framePause: realPace,
  deltaChars: 12,
  reply: (turn, tool, run) => {
    if (turn === 9) return { content: [{ type: 'text', text: `${prose(40, turn)} ${DONE}` }], stop_reason: 'end_turn' };
    const calls = commandsOf(turn).map((command, k) => toolUse(`toolu_b${run}_${turn}_${k}`, tool, command));
    return {
      content: [{ type: 'text', text: prose(10, turn) }, ...calls, { type: 'text', text: prose(60, turn + 1) }],
      stop_reason: 'tool_use',
    };
  },
};

/** A tree of 3,000 small source files (60 packages × 50 modules, ~14 MB), where the (b) commands look. */
export function makeWorkspace(dir: string): void {
  let seed = 1;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const words = 'const let function return import export type interface async await value result error index count items state event message tool model turn reply stream buffer parse check'.split(' ');
  for (let p = 0; p < 60; p++) {
    mkdirSync(join(dir, 'src', `pkg${p}`), { recursive: true });
    for (let m = 0; m < 50; m++) {
      const lines: string[] = [];
      for (let l = 0; l < 100; l++) lines.push(`  ${Array.from({ length: 7 }, () => words[Math.floor(random() * words.length)]).join(' ')};`);
      if (m === p % 50) lines.push(`  // needle${p % 10} is here`);
      writeFileSync(join(dir, 'src', `pkg${p}`, `mod${m}.ts`), `${lines.join('\n')}\n`);
    }
  }
}

/** What the server saw of one run. */
export interface RunLog {
  /** `performance.now()` of each request's arrival, task or not, in order. */
  requests: Array<{ at: number; task: boolean; turn: number }>;
  /** tool_use id → when its block's `content_block_stop` was written. */
  blockStops: Map<string, number>;
  /** tool_use id → the turn it belongs to and its place among the reply's tool calls. */
  calls: Map<string, { turn: number; place: number; of: number; command: string }>;
  /** turn → when the reply's `message_stop` was written. */
  replyEnds: Map<number, number>;
}

export interface TaskServer {
  url: string;
  /** Starts recording a new run; `run` numbers its tool_use ids. */
  begin(run: number): RunLog;
  close(): Promise<void>;
}

function isTaskRequest(body: RequestBody): string | undefined {
  const tool = (body.tools ?? []).map((t) => ('name' in t ? t.name : '')).find((name) => /^bash$/i.test(name));
  return tool !== undefined && JSON.stringify(body.messages).includes(MARKER) ? tool : undefined;
}

export async function startTaskServer(spec: ScenarioSpec): Promise<TaskServer> {
  let log: RunLog = { requests: [], blockStops: new Map(), calls: new Map(), replyEnds: new Map() };
  let run = 0;
  /** request index → the reply's content and turn, to know which block a frame ends. */
  const replies = new Map<number, { content: ScriptedBlock[]; turn: number } | undefined>();
  let server: MessagesServer | undefined;
  const step = (body: RequestBody, index: number): ReplyStep => {
    const tool = isTaskRequest(body);
    const turn = body.messages.filter((m) => m.role === 'assistant').length;
    log.requests.push({ at: server?.requests[index]?.receivedAt ?? Number.NaN, task: tool !== undefined, turn });
    if (tool === undefined) {
      replies.set(index, undefined);
      return { content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' };
    }
    const reply = spec.reply(turn, tool, run);
    const uses = reply.content.filter((b) => b.type === 'tool_use');
    uses.forEach((b, place) => log.calls.set(b.id, { turn, place, of: uses.length, command: String(b.input.command) }));
    replies.set(index, { content: reply.content, turn });
    return reply;
  };
  server = await startMessagesServer({
    ...(spec.framePause ? { framePause: spec.framePause } : {}),
    ...(spec.deltaChars ? { deltaChars: spec.deltaChars } : {}),
    onFrame: (request, frame, at) => {
      const reply = replies.get(request);
      if (!reply) return;
      const data = frame.data as { type: string; index?: number };
      if (data.type === 'message_stop') log.replyEnds.set(reply.turn, at);
      if (data.type !== 'content_block_stop' || data.index === undefined) return;
      const block = reply.content[data.index];
      if (block?.type === 'tool_use') log.blockStops.set(block.id, at);
    },
  });
  // Every request takes the next step: queue more than any run asks for, and refill as they go.
  const refill = () => {
    while ((server?.pending ?? 0) < 200) server?.enqueue(step);
  };
  refill();
  return {
    url: server.url,
    begin(n) {
      run = n;
      refill();
      server?.requests.splice(0);
      replies.clear();
      log = { requests: [], blockStops: new Map(), calls: new Map(), replyEnds: new Map() };
      return log;
    },
    close: () => server?.close() ?? Promise.resolve(),
  };
}

/** How long the server takes to stream all the task's replies of `spec` at its pace, ms (no tool or client time). */
export function pacedStreamMs(spec: ScenarioSpec): number {
  if (!spec.framePause) return 0;
  let ms = 0;
  for (let turn = 0; turn < spec.turns; turn++) {
    const chars = spec
      .reply(turn, 'bash', 0)
      .content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : b.type === 'tool_use' ? JSON.stringify(b.input).length : 0), 0);
    ms += TIME_TO_FIRST_TOKEN_MS + ((chars / 4) * 1000) / TOKENS_PER_SECOND;
  }
  return ms;
}
