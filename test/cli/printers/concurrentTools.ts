/**
 * One reply with several concurrency-safe calls (Read, Glob, Grep), run by an engine (Claude Code's binary when
 * recording: ./recordConcurrentTools.ts; agentloop's CLI in concurrentTools.process.test.ts) as an Agent SDK program
 * drives it (stream-json over its stdin and stdout). The order in which the calls end is made certain, and their
 * overlap proven, without a clock: the program's PreToolUse hook holds a call until the program has received the
 * result line of the call that must end before it (`after`). An engine that ran the calls one after the other would
 * wait on the first call's hook for good: the hold is then let go by a 20 s fallback, which the run reports
 * (`released: 'timeout'`). (A FIFO read by Read would hold a call too, but agentloop's Read refuses a FIFO before
 * opening it, which Claude Code 2.1.197 reads: tools/read/readTool.ts.)
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { MessagesServer, RequestBody, Step } from '../../support/messagesServer.js';

/** A call of the reply: its id, tool, input (paths in the run's folder), the text its result holds, the call that ends before it. */
interface Call {
  id: string;
  name: 'Read' | 'Glob' | 'Grep';
  input: (cwd: string) => Record<string, unknown>;
  /** Text its result holds: its result is bound to its id. */
  holds: string;
  /** Held (its PreToolUse hook) until the result of this call is out. */
  after?: string;
}

export interface ConcurrentCase {
  name: string;
  calls: Call[];
}

const read = (id: string, name: string, after: string): Call => ({ id, name: 'Read', input: (cwd) => ({ file_path: join(cwd, name) }), holds: `in ${name}`, after });

export const CASES: ConcurrentCase[] = [
  {
    // Read a.txt ends after Read b.txt, which ends after Glob: the reverse of the calls' order.
    name: 'Read, Read, Glob: the last call ends first',
    calls: [read('toolu_R1', 'a.txt', 'toolu_R2'), read('toolu_R2', 'b.txt', 'toolu_G1'), { id: 'toolu_G1', name: 'Glob', input: () => ({ pattern: 'docs/*.md' }), holds: 'docs/notes.md' }],
  },
  {
    name: 'Read, Grep: the second call ends first',
    calls: [read('toolu_R1', 'a.txt', 'toolu_S1'), { id: 'toolu_S1', name: 'Grep', input: (cwd) => ({ pattern: 'note', path: join(cwd, 'docs'), output_mode: 'content' }), holds: 'a note' }],
  },
];

/** The model both engines are asked for. */
export const MODEL = 'claude-sonnet-4-5-20250929';

/** A line as compared: its type (and subtype), and the tool_use / tool_result blocks of a message line by id. */
export function shapeOf(line: SDKMessage): string {
  const record = line as unknown as Record<string, unknown>;
  const kind = `${String(record.type)}${typeof record.subtype === 'string' ? `/${record.subtype}` : ''}`;
  const content = (record.message as { content?: unknown } | undefined)?.content;
  const blocks = Array.isArray(content) ? (content as { type: string; id?: string; tool_use_id?: string; is_error?: boolean }[]) : [];
  const named = blocks.map((b) => (b.type === 'tool_use' ? `tool_use ${b.id}` : b.type === 'tool_result' ? `tool_result ${b.tool_use_id}${b.is_error ? ' error' : ''}` : b.type));
  return [kind, ...named].join(' ');
}

export interface ConcurrentRun {
  /** The shapes of the lines the program received, in order. */
  lines: string[];
  /** The tool_result ids of the request after the reply, in its order. */
  nextRequest: string[];
  /** For each call, whether the result the next request carries for it holds its text. */
  bound: Record<string, boolean>;
  /** How the held calls were let go: each once the call before it had ended (`lines`), or by the fallback (`timeout`). */
  released: 'lines' | 'timeout';
}

/** The folder a case runs in: docs/notes.md, docs/more.md, and what its Reads read. */
function prepare(cwd: string, c: ConcurrentCase): void {
  mkdirSync(join(cwd, 'docs'), { recursive: true });
  writeFileSync(join(cwd, 'docs', 'notes.md'), 'a note\n');
  writeFileSync(join(cwd, 'docs', 'more.md'), 'more words\n');
  for (const call of c.calls) if (call.name === 'Read') writeFileSync(call.input(cwd).file_path as string, `${call.holds}\n`);
}

/** The reply with the case's calls, then an answer. */
export function repliesOf(c: ConcurrentCase, cwd: string): Step[] {
  const uses = c.calls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: call.name, input: call.input(cwd) }));
  return [{ content: uses, stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'Looked.' }], stop_reason: 'end_turn' }];
}

const resultText = (block: { content?: unknown }) => (typeof block.content === 'string' ? block.content : JSON.stringify(block.content ?? ''));

/** What holds the calls: each waits until the result of the call it comes after is out, or the fallback. */
function holds(c: ConcurrentCase) {
  const out = new Map<string, () => void>();
  const waits = new Map<string, Promise<void>>();
  for (const call of c.calls) waits.set(call.id, call.after ? new Promise<void>((resolve) => out.set(call.id, resolve)) : Promise.resolve());
  let released: ConcurrentRun['released'] = 'lines';
  const fallback = setTimeout(() => {
    released = 'timeout';
    for (const resolve of out.values()) resolve();
  }, 20_000);
  return {
    wait: (id: string | undefined) => waits.get(id ?? '') ?? Promise.resolve(),
    /** A line the program received: a result ends its call, which lets go the call held after it. */
    seen(line: SDKMessage) {
      const content = line.type === 'user' ? line.message.content : [];
      for (const block of Array.isArray(content) ? content : []) {
        if (block.type !== 'tool_result') continue;
        for (const call of c.calls) if (call.after === block.tool_use_id) out.get(call.id)?.();
      }
    },
    end: () => (clearTimeout(fallback), released),
  };
}

/** Runs case `c` with `executable` (Claude Code's, or agentloop's CLI) in `cwd` against `server`. */
export async function runCase(executable: string, env: NodeJS.ProcessEnv, cwd: string, server: MessagesServer, c: ConcurrentCase): Promise<ConcurrentRun> {
  prepare(cwd, c);
  server.enqueue(...repliesOf(c, cwd));
  const hold = holds(c);
  const hook = async (_input: unknown, toolUseId: string | undefined) => (await hold.wait(toolUseId), { continue: true });
  const options = { pathToClaudeCodeExecutable: executable, cwd, env, model: MODEL, tools: ['Read', 'Glob', 'Grep'], hooks: { PreToolUse: [{ hooks: [hook] }] } };
  const lines: string[] = [];
  try {
    for await (const message of query({ prompt: 'look at them', options })) {
      hold.seen(message);
      if (message.type !== 'system' || message.subtype !== 'init') lines.push(shapeOf(message));
    }
  } finally {
    hold.end();
  }
  const next = server.requests.map((r) => r.body as RequestBody).find((b) => JSON.stringify(b?.messages?.at(-1) ?? '').includes('"tool_result"'));
  const results = ((next?.messages.at(-1)?.content ?? []) as { type: string; tool_use_id?: string; content?: unknown }[]).filter((b) => b.type === 'tool_result');
  const bound = Object.fromEntries(c.calls.map((call) => [call.id, resultText(results.find((r) => r.tool_use_id === call.id) ?? {}).includes(call.holds)]));
  return { lines, nextRequest: results.map((r) => r.tool_use_id ?? ''), bound, released: hold.end() };
}
