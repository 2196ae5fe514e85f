/**
 * Agent SDK programs, each run the same way against any engine (agentloop's built CLI, or Claude Code's binary when
 * the fixtures are recorded: test/cli/sdk/record.ts) and the same scripted Messages API: the message sequence each program
 * receives is what test/cli/sdk/sequences.process.test.ts compares with Claude Code's recorded one.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSdkMcpServer, getSessionMessages, listSessions, query, tool, type Options, type Query, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
import type { RequestBody, ScriptedBlock, Step } from '../../support/messagesServer.js';
import { EVERYTHING } from '../../support/mcp.js';

/** Where a program runs: the engine's executable, its environment (the mock's URL, a key), the working directory. */
export interface Engine {
  executable: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface Scenario {
  name: string;
  /** The mock's replies, in order. */
  replies: Step[];
  /** The program: what it sends and when; it returns every message it received. */
  program: (engine: Engine) => Promise<SDKMessage[]>;
  /**
   * What the scenario's feature did, as plain data (recorded from Claude Code beside the sequence, compared as it is):
   * for a feature the sequence alone would not show missing (resume, plan mode).
   */
  facts?: (run: Run) => unknown;
}

/** One program's run: the requests the Messages API got, the working directory, the messages received. */
export interface Run {
  requests: RequestBody[];
  cwd: string;
  messages: SDKMessage[];
}

/** The texts of a request's messages, role first (`user:one`); blocks other than text and reminders left out. */
function textsOf(body: RequestBody | undefined): string[] {
  return (body?.messages ?? []).flatMap((m) =>
    typeof m.content === 'string'
      ? [`${m.role}:${m.content}`]
      : m.content.flatMap((b) => (b.type === 'text' && !b.text.startsWith('<system-reminder>') ? [`${m.role}:${b.text}`] : [])),
  );
}

/** The model every scenario asks for (but `defaults`, which asks for none). */
export const MODEL = 'claude-test';

const text = (words: string): Step => ({ content: [{ type: 'text', text: words }], stop_reason: 'end_turn' });

/** A call of the shell tool, named as the engine offers it (`Bash` in Claude Code), after `before` (a text, or blocks). */
function shell(id: string, command: string, before?: string | ScriptedBlock[]): Step {
  return (body: RequestBody) => {
    const names = (body.tools ?? []).map((t) => ('name' in t ? t.name : ''));
    const name = names.find((n) => n === 'Bash') ?? names.find((n) => n === 'bash') ?? 'Bash';
    const call = { type: 'tool_use' as const, id, name, input: { command } };
    const first: ScriptedBlock[] = typeof before === 'string' ? [{ type: 'text', text: before }] : (before ?? []);
    return { content: [...first, call], stop_reason: 'tool_use' };
  };
}

/** Two calls of the shell tool in one reply. */
function twoShells(id1: string, command1: string, id2: string, command2: string): Step {
  return (body: RequestBody) => {
    const names = (body.tools ?? []).map((t) => ('name' in t ? t.name : ''));
    const name = names.find((n) => n === 'Bash') ?? names.find((n) => n === 'bash') ?? 'Bash';
    const call = (id: string, command: string) => ({ type: 'tool_use' as const, id, name, input: { command } });
    return { content: [call(id1, command1), call(id2, command2)], stop_reason: 'tool_use' };
  };
}

/** The result's permission_denials, as names and ids. */
const denialsOf = (messages: SDKMessage[]) =>
  messages.filter((m) => m.type === 'result').map((m) => (m as { permission_denials: { tool_name: string; tool_use_id: string }[] }).permission_denials.map((d) => `${d.tool_name} ${d.tool_use_id}`));

/** The `system/status` lines, but their uuid and session id. */
const statusesOf = (messages: SDKMessage[]) =>
  messages.filter((m) => kindOf(m) === 'system/status').map((m) => ({ status: (m as { status?: unknown }).status, permissionMode: (m as { permissionMode?: unknown }).permissionMode }));

/** The keys of an object, nested objects' keys as `key.inner`. */
function nestedKeys(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...nestedKeys(inner).map((k) => `${key}.${k}`)]);
}

const thought = (thinking: string, signature: string): ScriptedBlock => ({ type: 'thinking', thinking, signature });

const callOf = (id: string, name: string, input: Record<string, unknown>): Step => ({ content: [{ type: 'tool_use', id, name, input }], stop_reason: 'tool_use' });

function sdkOptions(engine: Engine, extra: Options = {}): Options {
  return { pathToClaudeCodeExecutable: engine.executable, cwd: engine.cwd, env: engine.env, model: MODEL, ...extra };
}

async function collect(engine: Engine, prompt: string | AsyncIterable<SDKUserMessage>, extra: Options = {}): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  try {
    for await (const message of query({ prompt, options: sdkOptions(engine, extra) })) messages.push(message);
  } catch {
    messages.push(THROWN); // the SDK throws after an error result: the program sees that too
  }
  return messages;
}

const resultOf = (messages: SDKMessage[]) => messages.find((m) => m.type === 'result');

/** Stands for the error the SDK's iterator threw, in a program's messages. */
const THROWN = { type: 'thrown' } as unknown as SDKMessage;

/** A prompt stream that stays open until `end()`: the SDK's streaming input mode. */
export function promptStream() {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    push(words: string) {
      queue.push({ type: 'user', message: { role: 'user', content: words }, parent_tool_use_id: null, session_id: '' });
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = queue.shift();
        if (next) yield next;
        else if (ended) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

/**
 * Streaming input: sends `prompts` one turn after the other; `onMessage` may act on the query (interrupt, set the
 * model) and returns the next prompt early, or nothing. The stream ends after as many results as prompts.
 */
async function turns(engine: Engine, prompts: string[], extra: Options = {}, onMessage?: (q: Query, m: SDKMessage, results: number) => Promise<unknown>) {
  const stream = promptStream();
  const q = query({ prompt: stream, options: sdkOptions(engine, extra) });
  const messages: SDKMessage[] = [];
  stream.push(prompts[0]!);
  let results = 0;
  for await (const message of q) {
    messages.push(message);
    await onMessage?.(q, message, results);
    if (message.type !== 'result') continue;
    results += 1;
    if (results === prompts.length) break;
    stream.push(prompts[results]!);
  }
  stream.end();
  return messages;
}

const allowAll: Options['canUseTool'] = async (_name, input) => ({ behavior: 'allow', updatedInput: input });

const calc = () =>
  createSdkMcpServer({
    name: 'calc',
    version: '1.0.0',
    tools: [tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))],
  });

/**
 * How a program hands its stdio MCP server over: to agentloop as SDK 0.3.335 does by default (in initialize, with
 * --await-initialize); to Claude Code 2.1.197, which predates that (2.1.326 reads it; 2.1.197 exits with "unknown
 * option '--await-initialize'"), as --mcp-config ('argv'). The messages the program receives do not depend on it.
 */
const delivery = (engine: Engine): Options['mcpServersDelivery'] => (engine.executable.endsWith('.js') ? 'initialize' : 'argv');

/** The schema of the structured-output scenarios: an object with a number `n`. */
export const NUMBER_SCHEMA = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

/**
 * setPermissionMode while the model's reply is under way: the reply (a Write) is held back until the mode is
 * acceptEdits; the call is decided after the change, so it runs under the new mode (in default it would be denied).
 */
function midTurnMode(): Scenario {
  let dir = '';
  let asked: () => void = () => {};
  let changed: Promise<void> = Promise.resolve();
  let release: () => void = () => {};
  const write: Step = async () => {
    asked();
    await changed;
    return { content: [{ type: 'tool_use', id: 'w1', name: 'Write', input: { file_path: join(dir, 'mode.txt'), content: 'acceptEdits\n' } }], stop_reason: 'tool_use' };
  };
  return {
    name: 'setPermissionMode during a turn',
    replies: [write, text('Written.')],
    program: async (engine) => {
      dir = engine.cwd;
      const requested = new Promise<void>((resolve) => (asked = resolve));
      changed = new Promise<void>((resolve) => (release = resolve));
      const stream = promptStream();
      const q = query({ prompt: stream, options: sdkOptions(engine) });
      stream.push('write mode.txt');
      const messages: SDKMessage[] = [];
      const changing = requested.then(async () => {
        await q.setPermissionMode('acceptEdits');
        release();
      });
      for await (const message of q) {
        messages.push(message);
        if (message.type === 'result') break;
      }
      await changing;
      stream.end();
      return messages;
    },
    facts: ({ cwd, messages }) => ({ wrote: existsSync(join(cwd, 'mode.txt')), denied: denialsOf(messages), statuses: statusesOf(messages) }),
  };
}

/** The subagent of the `agents` scenarios: its prompt marks its requests. */
const REVIEWER = { description: 'Reviews a file', prompt: 'REVIEWER-PROMPT You review files.', tools: ['Bash', 'Read'] };

const isChild = (body: RequestBody) => JSON.stringify(body.system ?? '').includes('REVIEWER-PROMPT');

/** Replies for the parent's requests and the subagent's (told apart by the agent's prompt), each list in its order. */
function routed(parent: Step[], child: Step[]): Step[] {
  const queues = { parent: [...parent], child: [...child] };
  return Array.from({ length: parent.length + child.length }, () => (body: RequestBody, index: number, request: Parameters<Extract<Step, (...args: never[]) => unknown>>[2]) => {
    const queue = isChild(body) ? queues.child : queues.parent;
    const step = queue.shift() ?? text('nothing left');
    return typeof step === 'function' ? step(body, index, request) : step;
  });
}

/** What a subagent run shows: the child's request, the parent's result block, the lines' parents, the task lines' keys. */
function agentFacts(requests: RequestBody[], messages: SDKMessage[]) {
  const child = requests.find(isChild);
  const results = requests.filter((body) => !isChild(body)).flatMap((body) => body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])))
    .filter((b) => b.type === 'tool_result' && String(b.tool_use_id).startsWith('toolu_A'))
    .map((b) => (b.type === 'tool_result' && Array.isArray(b.content) ? b.content.map((c) => (c.type === 'text' ? c.text.replace(/a[0-9a-f]{16}/g, '<id>').replace(/\d+/g, 'N').replace(/ \(use SendMessage[^)]*\)/, '') : c.type)) : []));
  const data = messages.map((m) => (m as { tool_use_result?: Record<string, unknown> }).tool_use_result).find((d) => d && 'agentId' in d);
  return {
    childTools: (child?.tools ?? []).map((t) => ('name' in t ? t.name.toLowerCase() : '')), // the model calls agentloop's shell tool `bash`
    childTexts: textsOf(child),
    results: [...new Set(results.map((r) => JSON.stringify(r)))].map((r) => JSON.parse(r) as unknown),
    parents: shownOf(messages).filter((m) => m.type === 'assistant' || m.type === 'user').map((m) => (m as { parent_tool_use_id: string | null }).parent_tool_use_id),
    toolUseResult: data ? { ...pickKeys(data, ['status', 'prompt', 'agentType', 'content']), agentId: String(data.agentId).replace(/a[0-9a-f]{16}/, '<id>') } : null,
  };
}

const pickKeys = (value: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((key) => [key, value[key]]));

/** A call of tool `name` as the engine spells it (`Bash` in Claude Code, `bash` in agentloop), alone in its reply. */
const toolCall = (id: string, name: string, input: Record<string, unknown>): Step => (body: RequestBody) => {
  const offered = (body.tools ?? []).map((t) => ('name' in t ? t.name : '')).find((n) => n.toLowerCase() === name.toLowerCase());
  const given = Object.fromEntries(Object.entries(input).map(([key, value]) => [key, typeof value === 'function' ? (value as () => unknown)() : value]));
  return { content: [{ type: 'tool_use', id, name: offered ?? name, input: given }], stop_reason: 'tool_use' };
};

/** The directory of the `agent tools` run (its program sets it before any request): Read, Write and Edit take absolute paths. */
const toolsRun = { cwd: '' };
const inRun = (name: string) => () => join(toolsRun.cwd, name);

/** A subagent that calls each kind of tool once, one a reply: what its `system/task_progress` lines say of each. */
const TOOL_CALLS: Step[] = [
  toolCall('toolu_C1', 'Read', { file_path: inRun('sub/deep.md') }),
  toolCall('toolu_C0', 'Read', { file_path: inRun('notes.md') }),
  toolCall('toolu_C2', 'Write', { file_path: inRun('out.txt'), content: 'one\n' }),
  toolCall('toolu_C3', 'Edit', { file_path: inRun('out.txt'), old_string: 'one', new_string: 'two' }),
  toolCall('toolu_C4', 'Glob', { pattern: '*.md' }),
  toolCall('toolu_C5', 'Grep', { pattern: 'note' }),
  toolCall('toolu_C6', 'mcp__calc__add', { a: 2, b: 3 }),
  toolCall('toolu_C7', 'Bash', { command: 'echo a note', description: 'Print a note' }),
  toolCall('toolu_C8', 'Bash', { command: `echo ${'a long line of words '.repeat(6)}| wc -c` }),
];

/** Each `system/task_progress` line's fields but its ids and usage figures. */
const progressOf = (messages: SDKMessage[]) =>
  messages.filter((m) => kindOf(m) === 'system/task_progress').map((m) => {
    const { description, last_tool_name, subagent_type, usage } = m as unknown as { description: string; last_tool_name: string; subagent_type: string; usage: Record<string, unknown> };
    return { description: description.split(toolsRun.cwd).join('<dir>'), last_tool_name, subagent_type, usage: Object.keys(usage).sort() };
  });

/**
 * Two calls in one reply whose second ends first, made certain: the first waits until the program has received what
 * the engine writes when the second ends (`released`), or 20 s; the order of the ends is then the engine's. (Two
 * read-only commands at once, `until [ -e flag ]; do sleep 0.05; done` released by the program and `echo fast`: Claude
 * Code 2.1.197 wrote the second's result line first too. Not a scenario: agentloop's judge does not take `[ -e f ]` or
 * a loop as read-only, so it runs the two one after the other; `sleep 3` Claude Code runs as a background task.)
 */
const twoAtOnce = { release: () => {}, released: Promise.resolve() };
function holdFirst(onRelease: () => void): void {
  twoAtOnce.released = new Promise<void>((resolve) => {
    const release = () => (clearTimeout(timer), onRelease(), resolve());
    const timer = setTimeout(release, 20_000);
    twoAtOnce.release = release;
  });
}

/** Runs `prompt`, releasing the first call (`onRelease`) once a line says the second ended (`ended(message)`). */
async function collectReleasing(engine: Engine, prompt: string, extra: Options, ended: (message: SDKMessage) => boolean, onRelease: () => void = () => {}): Promise<SDKMessage[]> {
  holdFirst(onRelease);
  const messages: SDKMessage[] = [];
  try {
    for await (const message of query({ prompt, options: sdkOptions(engine, extra) })) {
      messages.push(message);
      if (ended(message)) twoAtOnce.release();
    }
  } catch {
    messages.push(THROWN);
  } finally {
    twoAtOnce.release();
  }
  return messages;
}

/** The tool_use ids of the lines that end a call (tool results, task notifications), in order: which ended first. */
const endsOf = (messages: SDKMessage[]) =>
  messages.flatMap((m) => {
    if (kindOf(m) === 'system/task_notification') return [`task ${(m as { tool_use_id?: string }).tool_use_id}`];
    const content = m.type === 'user' && m.parent_tool_use_id === null ? m.message.content : [];
    return Array.isArray(content) ? content.flatMap((b) => (b.type === 'tool_result' ? [`result ${b.tool_use_id}`] : [])) : [];
  });

const resultFor = (id: string) => (m: SDKMessage) => m.type === 'user' && Array.isArray(m.message.content) && m.message.content.some((b) => b.type === 'tool_result' && b.tool_use_id === id);

export const SCENARIOS: Scenario[] = [
  { name: 'defaults', replies: [text('Hello.')], program: (e) => collect(e, 'hi', { model: undefined }) },
  { name: 'systemPrompt', replies: [text('One.')], program: (e) => collect(e, 'hi', { systemPrompt: 'You answer in one word.' }) },
  { name: 'append', replies: [text('Two.')], program: (e) => collect(e, 'hi', { systemPrompt: { type: 'preset', preset: 'claude_code', append: 'Sign as Loop.' } }) },
  { name: 'read-only tool', replies: [shell('t1', 'ls'), text('Listed.')], program: (e) => collect(e, 'list the files') },
  { name: 'text and a tool in one reply', replies: [shell('t1', 'ls', 'Let me look.'), text('Listed.')], program: (e) => collect(e, 'list the files') },
  {
    name: 'hooks',
    replies: [shell('t1', 'rm -rf notes'), shell('t2', 'echo original'), text('Done.')],
    program: (e) =>
      collect(e, 'clean up', {
        canUseTool: allowAll,
        hooks: {
          UserPromptSubmit: [{ hooks: [async () => ({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'The user is in a hurry.' } })] }],
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                async (input) =>
                  String((input as { tool_input: { command: string } }).tool_input.command).startsWith('rm')
                    ? { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no deleting here' } }
                    : { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'echo changed' } } },
              ],
            },
          ],
          PostToolUse: [{ hooks: [async () => ({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'Checked by the host.' } })] }],
        },
      }),
    // The call the PreToolUse hook denied is listed in the result's permission_denials.
    facts: ({ messages }) => denialsOf(messages),
  },
  {
    name: 'two tool calls in one reply',
    replies: [twoShells('t1', 'echo one', 't2', 'echo two'), text('Both done.')],
    program: (e) => collect(e, 'run both', { allowedTools: ['Bash'] }),
    // One user line per tool result; the assistant lines' stop_reason; the result's nested usage keys.
    facts: ({ messages }) => ({
      // In the order of the calls: which of the two at once ends first is the machine's luck (two commands at once, below, makes it certain).
      results: messages.filter((m) => m.type === 'user').map((m) => (m.message.content as { tool_use_id?: string }[]).map((b) => b.tool_use_id)).sort((a, b) => String(a).localeCompare(String(b))),
      stopReasons: messages.filter((m) => m.type === 'assistant').map((m) => m.message.stop_reason),
      usage: nestedKeys((messages.find((m) => m.type === 'result') as { usage?: unknown } | undefined)?.usage),
      modelUsage: Object.values((messages.find((m) => m.type === 'result') as { modelUsage?: Record<string, unknown> } | undefined)?.modelUsage ?? {}).map(nestedKeys),
    }),
  },
  {
    name: 'hooks, includeHookEvents',
    replies: [shell('t1', 'ls'), text('Done.')],
    program: (e) =>
      collect(e, 'list', {
        includeHookEvents: true,
        hooks: {
          UserPromptSubmit: [{ hooks: [async () => ({ continue: true })] }],
          PreToolUse: [{ matcher: 'Bash', hooks: [async () => ({ continue: true })] }],
          PostToolUse: [{ hooks: [async () => ({ continue: true })] }],
          Stop: [{ hooks: [async () => ({ continue: true })] }],
        },
      }),
  },
  {
    name: 'thinking and a tool (maxThinkingTokens)',
    replies: [
      shell('t1', 'ls', [thought('ls will do.', 'EqQBCkYIBxgCKkD+rec/1=='), { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/rec' }]),
      { content: [thought('Listed.', 'EqQBCkYIBxgCKkD+rec/2=='), { type: 'text', text: 'Listed.' }], stop_reason: 'end_turn' },
    ],
    program: (e) => collect(e, 'list the files', { maxThinkingTokens: 2048 }),
  },
  {
    name: 'canUseTool allow and deny',
    replies: [shell('t1', 'touch allowed.txt'), shell('t2', 'touch denied.txt'), text('Done.')],
    program: (e) =>
      collect(e, 'make files', {
        canUseTool: async (_name, input) => (String(input.command).includes('denied') ? { behavior: 'deny', message: 'not that one' } : { behavior: 'allow', updatedInput: input }),
      }),
  },
  { name: 'in-process MCP tool', replies: [callOf('m1', 'mcp__calc__add', { a: 2, b: 3 }), text('It is 5.')], program: (e) => collect(e, 'add', { mcpServers: { calc: calc() } }) },
  {
    name: 'stdio MCP server (mcpServers)',
    replies: [callOf('m1', 'mcp__every__echo', { message: 'hi' }), text('Echoed.')],
    program: (e) => collect(e, 'echo', { mcpServers: { every: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }, allowedTools: ['mcp__every'], mcpServersDelivery: delivery(e) }),
  },
  { name: 'disallowedTools', replies: [shell('t1', 'ls'), text('Refused.')], program: (e) => collect(e, 'list', { disallowedTools: ['Bash'] }) },
  { name: 'allowedTools', replies: [shell('t1', 'touch allowed.txt'), text('Made.')], program: (e) => collect(e, 'make', { allowedTools: ['Bash'] }) },
  {
    // The touch is denied in default mode too, and Claude Code 2.1.197's plan mode runs it when an allow rule says so
    // (agentloop's does not): what shows the mode taken is the init line's, beside the denial.
    name: 'permissionMode plan',
    replies: [shell('t1', 'touch planned.txt'), text('Planned.')],
    program: (e) => collect(e, 'plan', { permissionMode: 'plan' }),
    facts: ({ cwd, messages }) => ({
      mode: (messages.find((m) => m.type === 'system') as { permissionMode?: string } | undefined)?.permissionMode,
      made: existsSync(join(cwd, 'planned.txt')),
      denied: (messages.find((m) => m.type === 'result') as { permission_denials?: { tool_name: string }[] } | undefined)?.permission_denials?.map((d) => d.tool_name),
    }),
  },
  { name: 'maxTurns', replies: [shell('t1', 'ls'), text('Never asked.')], program: (e) => collect(e, 'list', { maxTurns: 1 }) },
  {
    name: 'partial messages',
    replies: [text('Streamed words.')],
    program: (e) => collect(e, 'stream', { includePartialMessages: true }),
    // What the issue's `jq '.event.delta.text'` prints for each message, line for line (test/cli/jqPartial.process.test.ts).
    facts: ({ messages }) => shownOf(messages).map(deltaText),
  },
  { name: 'streaming input', replies: [text('First.'), text('Second.')], program: (e) => turns(e, ['one', 'two']) },
  {
    name: 'interrupt',
    replies: [shell('t1', 'sleep 30'), text('Next.')],
    program: (e) => turns(e, ['wait', 'go on'], { canUseTool: allowAll }, async (q, m, results) => (m.type === 'assistant' && results === 0 ? q.interrupt() : undefined)),
  },
  {
    name: 'setModel and setPermissionMode',
    replies: [text('First.'), shell('t1', 'touch planned.txt'), text('Not allowed.')],
    program: (e) =>
      turns(e, ['one', 'two'], {}, async (q, m, results) => {
        if (m.type === 'result' && results === 0) {
          await q.setModel('claude-test-2');
          await q.setPermissionMode('plan');
        }
      }),
    facts: ({ messages }) => statusesOf(messages),
  },
  midTurnMode(),
  {
    name: 'overloaded, then an answer, partial messages',
    replies: [shell('t1', 'ls'), { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }, text('After a retry.')],
    program: (e) => collect(e, 'list', { includePartialMessages: true }),
    // Where the status lines fall: one `requesting` a model call, none for its retry.
    facts: ({ messages }) => messages.filter((m) => ['system/status', 'system/api_retry', 'assistant', 'user', 'result'].includes(kindOf(m).replace(/:.*/, ''))).map((m) => kindOf(m).replace(/:ok$/, '') + ((m as { status?: string }).status ? ` ${(m as { status?: string }).status}` : '')),
  },
  {
    name: 'outputFormat',
    replies: [callOf('s1', 'StructuredOutput', { n: 'three' }), callOf('s2', 'StructuredOutput', { n: 3 }), text('Never asked.')],
    program: (e) => collect(e, 'count', { outputFormat: { type: 'json_schema', schema: NUMBER_SCHEMA } }),
  },
  {
    name: 'outputFormat, no call',
    replies: [text('Three.'), text('Still three.')],
    program: (e) => collect(e, 'count', { outputFormat: { type: 'json_schema', schema: NUMBER_SCHEMA } }),
  },
  {
    name: 'outputFormat, calls run out',
    replies: [1, 2, 3, 4, 5, 6].map((i) => callOf(`s${i}`, 'StructuredOutput', { m: i })),
    program: (e) => collect(e, 'count', { outputFormat: { type: 'json_schema', schema: NUMBER_SCHEMA } }),
  },
  { name: 'api error', replies: [{ error: { status: 400, type: 'invalid_request_error', message: 'messages: the prompt is not acceptable' } }], program: (e) => collect(e, 'hi') },
  { name: 'overloaded, then an answer', replies: [{ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }, text('After a retry.')], program: (e) => collect(e, 'hi') },
  {
    name: 'resume',
    replies: [text('First.'), text('Second.')],
    program: async (e) => {
      const first = await collect(e, 'one');
      const id = first.find((m) => m.type === 'result')?.session_id;
      return [...first, ...(await collect(e, 'two', { resume: id }))];
    },
    // The resumed request holds the first turn (the sequence is the same when --resume is ignored); num_turns counts
    // each query's model calls, not the session's.
    facts: ({ requests, messages }) => ({
      texts: textsOf(requests[1]).filter((t) => ['user:one', 'assistant:First.', 'user:two'].includes(t)),
      numTurns: messages.filter((m) => m.type === 'result').map((m) => (m as { num_turns: number }).num_turns),
    }),
  },
  {
    // The SDK's session functions read what the engine left where Claude Code keeps sessions ($CLAUDE_CONFIG_DIR);
    // resume, fork and continue go on from it.
    name: 'session functions, resume, fork, continue',
    replies: [shell('t1', 'echo hi'), text('First.'), text('Second.'), text('Third.'), text('Fourth.')],
    program: async (e) => {
      const config = join(e.cwd, '.claude-config');
      const env = { ...e.env, CLAUDE_CONFIG_DIR: config };
      const engine = { ...e, env };
      const first = await collect(engine, 'one', { allowedTools: ['Bash'] });
      const id = resultOf(first)?.session_id;
      const second = await collect(engine, 'two', { resume: id });
      const third = await collect(engine, 'three', { resume: id, forkSession: true });
      const fourth = await collect(engine, 'four', { continue: true });
      const saved = process.env.CLAUDE_CONFIG_DIR;
      process.env.CLAUDE_CONFIG_DIR = config; // where the SDK's functions read
      try {
        const fork = resultOf(third)?.session_id;
        const listed = await listSessions({ dir: e.cwd });
        const kinds = async (of: string | undefined) => (await getSessionMessages(of ?? '', { dir: e.cwd })).map((m) => kindOf(m as SDKMessage));
        const facts = {
          ids: { forkIsNew: fork !== id, continuedTheFork: resultOf(fourth)?.session_id === fork, listed: listed.map((s) => s.sessionId).sort().join() === [id, fork].sort().join() },
          listed: listed.map((s) => ({ summary: s.summary, firstPrompt: s.firstPrompt })).sort((a, b) => a.summary.localeCompare(b.summary)),
          resumed: await kinds(id),
          forked: await kinds(fork),
        };
        return [...first, ...second, ...third, ...fourth, { type: 'facts', facts } as unknown as SDKMessage];
      } finally {
        if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR;
        else process.env.CLAUDE_CONFIG_DIR = saved;
      }
    },
    facts: ({ requests, messages }) => ({
      ...(messages.find((m) => m.type === ('facts' as string)) as unknown as { facts: object }).facts,
      numTurns: messages.filter((m) => m.type === 'result').map((m) => (m as { num_turns: number }).num_turns),
      // The continued request holds the fork's history: its prompts, in order.
      continued: textsOf(requests.at(-1)).filter((t) => t.startsWith('user:')),
    }),
  },
  {
    // Claude Code's memory files by settingSources, where it puts them: a reminder before the first user message.
    name: 'CLAUDE.md through settingSources',
    replies: [text('One.'), text('Two.'), text('Three.')],
    program: async (e) => {
      const cwd = join(e.cwd, 'project'); // the files of a parent directory are read too: e.cwd is that parent
      const config = join(e.cwd, '.claude-config');
      for (const dir of [cwd, join(cwd, '.claude'), config]) mkdirSync(dir, { recursive: true });
      writeFileSync(join(e.cwd, 'CLAUDE.md'), 'Parent rules.\n');
      writeFileSync(join(cwd, 'CLAUDE.md'), 'Project rules.\n@notes/extra.md and `@not-this.md`\n');
      mkdirSync(join(cwd, 'notes'));
      writeFileSync(join(cwd, 'notes', 'extra.md'), 'Imported rules.\n@../deeper.md\n');
      writeFileSync(join(cwd, 'deeper.md'), 'Deeper rules.\n');
      writeFileSync(join(cwd, 'not-this.md'), 'Never imported.\n');
      writeFileSync(join(cwd, '.claude', 'CLAUDE.md'), 'Dot-claude rules.\n');
      writeFileSync(join(cwd, 'CLAUDE.local.md'), 'Local rules.\n');
      writeFileSync(join(config, 'CLAUDE.md'), 'User rules.\n');
      const engine = { ...e, cwd, env: { ...e.env, CLAUDE_CONFIG_DIR: config } };
      return [
        ...(await collect(engine, 'one', { settingSources: ['project'] })),
        ...(await collect(engine, 'two', { settingSources: ['user', 'project', 'local'] })),
        ...(await collect(engine, 'three', { settingSources: [] })),
      ];
    },
    // The claudeMd part of each request's reminder, the directory written <dir>; null where there is none.
    facts: ({ requests, cwd }) =>
      requests.map((body) => {
        const first = body.messages[0]?.content;
        const reminder = Array.isArray(first) ? first.find((b) => b.type === 'text' && b.text.includes('# claudeMd')) : undefined;
        const text = reminder && reminder.type === 'text' ? reminder.text : undefined;
        return text === undefined ? null : text.slice(text.indexOf('# claudeMd'), text.indexOf('# currentDate')).split(cwd).join('<dir>');
      }),
  },
  {
    name: 'agents',
    replies: routed(
      [{ content: [{ type: 'text', text: 'Asking the reviewer.' }, { type: 'tool_use', id: 'toolu_A1', name: 'Agent', input: { description: 'Review notes', prompt: 'Review notes.md', subagent_type: 'reviewer' } }], stop_reason: 'tool_use' }, text('The reviewer says it looks good.')],
      [shell('toolu_C1', 'echo a note'), text('Looks good: one line.')],
    ),
    program: (e) => collect(e, 'review notes.md', { allowedTools: ['Bash'], agents: { reviewer: REVIEWER } }),
    facts: ({ requests, messages }) => agentFacts(requests, messages),
  },
  {
    name: 'agent tools',
    replies: routed(
      [{ content: [{ type: 'tool_use', id: 'toolu_A1', name: 'Agent', input: { description: 'Check files', prompt: 'Check the files', subagent_type: 'checker' } }], stop_reason: 'tool_use' }, text('Checked.')],
      [...TOOL_CALLS, text('All checked.')],
    ),
    program: (e) => {
      toolsRun.cwd = e.cwd;
      writeFileSync(join(e.cwd, 'notes.md'), 'a note\n');
      mkdirSync(join(e.cwd, 'sub'));
      writeFileSync(join(e.cwd, 'sub', 'deep.md'), 'a deep note\n');
      const checker = { description: 'Checks files', prompt: 'REVIEWER-PROMPT You check files.' };
      return collect(e, 'check the files', { permissionMode: 'acceptEdits', allowedTools: ['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep', 'mcp__calc__add'], mcpServers: { calc: calc() }, agents: { checker } });
    },
    facts: ({ messages }) => progressOf(messages),
  },
  {
    // Claude Code writes each child's result line as the child ends, not both after both (its task_notification first).
    name: 'two agents in one reply, the second ends first',
    replies: Array.from({ length: 4 }, () => async (body: RequestBody) => {
      const system = JSON.stringify(body.system ?? '');
      if (system.includes('ALPHA-PROMPT')) return (await twoAtOnce.released, text('Alpha done.'));
      if (system.includes('BETA-PROMPT')) return text('Beta done.');
      const call = (id: string, type: string) => ({ type: 'tool_use' as const, id, name: 'Agent', input: { description: `Ask ${type}`, prompt: `Answer, ${type}`, subagent_type: type } });
      const answered = JSON.stringify(body.messages.at(-1)?.content ?? '').includes('"tool_result"');
      return answered ? text('Both answered.') : { content: [call('toolu_A1', 'alpha'), call('toolu_A2', 'beta')], stop_reason: 'tool_use' };
    }),
    program: (e) => {
      const agents = { alpha: { description: 'Answers first', prompt: 'ALPHA-PROMPT You answer.', tools: [] }, beta: { description: 'Answers second', prompt: 'BETA-PROMPT You answer.', tools: [] } };
      return collectReleasing(e, 'ask both', { agents }, resultFor('toolu_A2'));
    },
    facts: ({ messages }) => endsOf(messages),
  },
  {
    name: 'initializationResult',
    replies: [text('Ready.')],
    program: async (e) => {
      const stream = promptStream();
      const q = query({ prompt: stream, options: sdkOptions(e) });
      // The answer to initialize, as one more message: its keys are compared as a line's are.
      const messages = [{ type: 'initializationResult', ...(await q.initializationResult()) } as unknown as SDKMessage];
      stream.push('hi');
      for await (const message of q) {
        messages.push(message);
        if (message.type === 'result') break;
      }
      stream.end();
      return messages;
    },
  },
];

// ---------------------------------------------------------------------------------------------
// What is compared
// ---------------------------------------------------------------------------------------------

/** Claude Code's lines that no feature of issue 27 is about (its own bookkeeping): left out of the sequences. */
const IGNORED = new Set<string>(['rate_limit_event', 'system/status', 'system/session_state_changed', 'facts']);

/** One message as the sequence shows it: its kind, and the kinds of the content blocks of an assistant or user line. */
export function kindOf(message: SDKMessage): string {
  const m = message as { type: string; subtype?: string; message?: { content?: unknown }; event?: { type?: string } };
  if (m.type === 'stream_event') return `stream_event:${m.event?.type ?? ''}`;
  if (m.type === 'assistant' || m.type === 'user') {
    const content = m.message?.content;
    const blocks = typeof content === 'string' ? ['text'] : Array.isArray(content) ? content.map((b: { type: string }) => b.type) : [];
    return `${m.type}:${blocks.join(',')}`;
  }
  const result = m.type === 'result' ? `:${(message as { is_error: boolean }).is_error ? 'error' : 'ok'}` : '';
  return (m.subtype ? `${m.type}/${m.subtype}` : m.type) + result;
}

export function sequenceOf(messages: SDKMessage[]): string[] {
  return shownOf(messages).map(kindOf);
}

/** The messages the sequences show (Claude Code's bookkeeping lines left out). */
export function shownOf(messages: SDKMessage[]): SDKMessage[] {
  return messages.filter((m) => !IGNORED.has(kindOf(m).replace(/:.*/, '')));
}

/** What `jq '.event.delta.text'` gives for a message: a streamed text delta, else null. */
export function deltaText(message: unknown): string | null {
  const text = (message as { event?: { delta?: { text?: unknown } } }).event?.delta?.text;
  return typeof text === 'string' ? text : null;
}

/** The top-level keys of each kind of line, as a sorted list: the shape a script reads. */
export function keysOf(messages: SDKMessage[]): Record<string, string[]> {
  const keys: Record<string, Set<string>> = {};
  for (const message of messages) {
    const kind = kindOf(message).replace(/:.*/, '');
    for (const key of Object.keys(message)) (keys[kind] ??= new Set()).add(key);
  }
  return Object.fromEntries(Object.entries(keys).map(([kind, set]) => [kind, [...set].sort()]));
}
