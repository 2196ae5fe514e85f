/**
 * The CLI's json and stream-json output in Claude Code's shapes, so that a script written for `claude -p` runs on
 * agentloop unchanged: the CLI as a process, against the local Messages API server, and the jq filters people use.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findSession } from '../../src/transcript/store.js';
import { bashUse, lastToolResults, resultText } from '../support/agentServer.js';
import { CLI, RUN_EVERYTHING, runCli } from '../support/cli.js';
import type { ScriptedBlock, SseFrame, Step } from '../support/messagesServer.js';
import { openCliProject, type CliProject } from '../support/project.js';

const exec = promisify(execFile);
// Each test runs the CLI one to three times, each a fresh process: give a busy machine time.
vi.setConfig({ testTimeout: 90_000 });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The model as the API names it in its replies (the request names `claude-sonnet-4-5`). */
const ANSWERING_MODEL = 'claude-sonnet-4-5-20250929';
/** Anthropic's list price of Claude Sonnet 4.5, USD per million tokens: input, output, 5-minute cache write, cache read. */
const SONNET_45 = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };

type Line = Record<string, unknown> & { type: string };
interface Sent {
  id: string;
  model: string;
  role: string;
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
}

let project: CliProject;
/** Per request: what the server sent in message_start and message_delta. */
let sent: Sent[];

beforeEach(async () => {
  sent = [];
  project = await openCliProject('shapes', {
    files: { 'notes.txt': 'n', 'main.py': 'print(1)' },
    env: { MODEL_ID: 'claude-sonnet-4-5' },
    server: { onFrame: (request, frame) => record(request, frame) },
  });
});
afterEach(() => project.close());

function record(request: number, frame: SseFrame): void {
  const data = frame.data as Record<string, any>; // SSE payloads as the API documents them
  if (frame.event === 'message_start') {
    const { id, model, role, usage } = data.message;
    sent[request] = { id, model, role, usage: { ...usage }, stop_reason: '' };
  }
  if (frame.event === 'message_delta') {
    const message = sent[request] as Sent;
    message.stop_reason = data.delta.stop_reason;
    Object.assign(message.usage, data.usage);
  }
}

const FIRST_USAGE = { input_tokens: 1200, output_tokens: 40, cache_creation_input_tokens: 3000, cache_read_input_tokens: 0 };
const SECOND_USAGE = { input_tokens: 150, output_tokens: 90, cache_creation_input_tokens: 200, cache_read_input_tokens: 3000 };
const TOOL_TURN: ScriptedBlock[] = [{ type: 'text', text: 'Let me look.' }, bashUse('toolu_1', 'ls')];

/** A tool call, then an answer quoting its result; both replies name the dated model and carry cache usage. */
function twoTurns(): void {
  const answer: Step = (body) => ({ content: [{ type: 'text', text: `Results: ${lastToolResults(body).map(resultText).join(' | ')}` }], stop_reason: 'end_turn', model: ANSWERING_MODEL, usage: SECOND_USAGE });
  project.server.enqueue({ content: TOOL_TURN, stop_reason: 'tool_use', model: ANSWERING_MODEL, usage: FIRST_USAGE }, answer);
}

/** The cost of `usage` at `price`, worked out here rather than by the code under test. */
function dollars(usage: Sent['usage'], price: typeof SONNET_45): number {
  return (
    (usage.input_tokens * price.input +
      usage.output_tokens * price.output +
      usage.cache_creation_input_tokens * price.cacheWrite +
      usage.cache_read_input_tokens * price.cacheRead) /
    1e6
  );
}

const parseLines = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Line);

/**
 * A shell pipeline, as a script would run it: the CLI's stdout into jq. Its stdin is empty, as a cron job's is (an
 * open pipe would be read as context for the prompt).
 */
async function pipe(cliArgs: string, filter: string): Promise<string> {
  const { stdout } = await exec('bash', ['-c', `node ${CLI} ${cliArgs} < /dev/null | ${filter}`], { cwd: project.dir, env: project.env });
  return stdout;
}

describe('stream-json in Claude Code shapes', () => {
  it('init first; every line has the session id; assistant lines hold the API message as sent, one per content block; tool results are user lines', async () => {
    twoTurns();
    const run = await runCli(['-p', 'list the files', '--output-format', 'stream-json'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    const lines = parseLines(run.stdout);

    const init = lines[0] as Line;
    const toolNames = (project.server.requests[0]?.body?.tools ?? []).map((t) => ('name' in t ? t.name : t.type));
    expect(init).toMatchObject({
      type: 'system',
      subtype: 'init',
      cwd: project.dir,
      model: 'claude-sonnet-4-5',
      tools: ['Bash', 'Read', 'Write', 'Edit'], // Claude Code's names (the model is offered the shell tool as `bash`): its default set
      permissionMode: 'default', // Claude Code's -p without a permission flag: its `ls` is read-only and runs
      apiKeySource: 'ANTHROPIC_API_KEY',
    });
    expect(toolNames).toEqual(['bash', 'Read', 'Write', 'Edit']);
    expect(init.session_id).toMatch(UUID);
    for (const line of lines) expect(line.session_id, JSON.stringify(line)).toBe(init.session_id);

    // One assistant line per content block (Claude Code's): the first reply's text and tool call, then the answer.
    const assistant = lines.filter((l) => l.type === 'assistant');
    expect(assistant).toHaveLength(3);
    expect(sent).toHaveLength(2);
    const answerText = (lines.at(-1) as Line).result as string;
    const claudeNamed = (block: (typeof TOOL_TURN)[number]) => ('name' in block && block.name === 'bash' ? { ...block, name: 'Bash' } : block);
    const blocks = [...TOOL_TURN.map((block) => ({ block: claudeNamed(block), reply: 0 })), { block: { type: 'text', text: answerText }, reply: 1 }];
    assistant.forEach((line, i) => {
      expect(line.parent_tool_use_id).toBeNull();
      expect(line.uuid).toMatch(UUID);
      const message = line.message as Record<string, unknown>;
      const server = sent[blocks[i]!.reply] as Sent;
      // Claude Code's assistant lines carry the message as it started: stop_reason null (the result has the reason).
      expect(message).toMatchObject({ id: server.id, model: ANSWERING_MODEL, role: 'assistant', stop_reason: null });
      expect(message.model).toBe(server.model);
      expect(message.usage).toEqual(server.usage);
      expect(message.content).toEqual([blocks[i]!.block]);
    });
    expect(sent[0]?.usage).toEqual(FIRST_USAGE);
    expect(sent[1]?.usage).toEqual(SECOND_USAGE);

    // The tool result: a user line with the tool_result message, as Claude Code prints it; the prompt is not repeated.
    const user = lines.filter((l) => l.type === 'user');
    expect(user).toHaveLength(1);
    expect(user[0]).toMatchObject({ parent_tool_use_id: null, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] } });
    expect(JSON.stringify(user[0]?.message)).toContain('main.py');

    // Only Claude Code's kinds of line: agentloop's own loop events come only with --include-loop-events.
    expect([...new Set(lines.map((l) => l.type))].sort()).toEqual(['assistant', 'result', 'system', 'user']);

    const result = lines.at(-1) as Line;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, num_turns: 2, permission_denials: [] });
    expect(answerText).toContain('notes.txt');
    expect(result.uuid).toMatch(UUID);
    const cost = dollars(FIRST_USAGE, SONNET_45) + dollars(SECOND_USAGE, SONNET_45);
    expect(result.total_cost_usd).toBeCloseTo(cost, 12);
    expect(result.usage).toEqual({
      input_tokens: 1350,
      output_tokens: 130,
      cache_creation_input_tokens: 3200,
      cache_read_input_tokens: 3000,
      // Claude Code's keys for what agentloop does not use (server tools, 1-hour cache writes): their values for it.
      server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      service_tier: 'standard',
      cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 3200 },
      inference_geo: '',
      iterations: [],
      speed: 'standard',
    });
    expect(result.modelUsage).toEqual({
      [ANSWERING_MODEL]: {
        inputTokens: 1350, outputTokens: 130, cacheCreationInputTokens: 3200, cacheReadInputTokens: 3000, webSearchRequests: 0, costUSD: expect.closeTo(cost, 12),
        contextWindow: 200_000, maxOutputTokens: 8000,
      },
    });
    expect(result.duration_api_ms).toBeTypeOf('number');
    expect(result.duration_api_ms as number).toBeLessThanOrEqual(result.duration_ms as number);
  });

  it("jq filters written for Claude Code's stream-json run unchanged", async () => {
    // One run piped into jq as a script would; the other filters read the same output, saved as a script might.
    twoTurns();
    const saved = join(project.dir, '.run.jsonl') // hidden: the run's ls does not list it;
    const answer = await pipe(`-p 'list the files' --output-format stream-json`, `tee ${saved} | jq -r 'select(.type=="result") | .result'`);
    expect(answer).toBe('Results: main.py\nnotes.txt\n');
    const jq = async (filter: string) => (await exec('bash', ['-c', `cat ${saved} | ${filter}`])).stdout;

    expect(await jq(`jq -r 'select(.type=="assistant") | .message.content[] | select(.type=="text") | .text'`)).toBe('Let me look.\nResults: main.py\nnotes.txt\n');
    expect(await jq(`jq -r 'select(.type=="assistant") | .message.content[] | select(.type=="tool_use") | .input.command'`)).toBe('ls\n');
    expect(await jq(`jq -r 'select(.type=="user") | .message.content[] | select(.type=="tool_result") | .tool_use_id'`)).toBe('toolu_1\n');

    const first = (await jq(`jq -r '.session_id' | head -1`)).trim();
    expect(first).toMatch(UUID);
    expect(findSession(project.home, first)).toContain(first); // the session it names was saved

    const [turns, cost, isError] = (await jq(`jq -r 'select(.type=="result") | "\\(.num_turns) \\(.total_cost_usd) \\(.is_error)"'`)).trim().split(' ');
    expect(turns).toBe('2');
    expect(Number(cost)).toBeCloseTo(dollars(FIRST_USAGE, SONNET_45) + dollars(SECOND_USAGE, SONNET_45), 12);
    expect(isError).toBe('false');
  });
});

describe('permissions in the output', () => {
  it('with allow rules the init line says permissionMode default, and jq reads the denied call from the result', async () => {
    twoTurns(); // the model asks for `ls`: read-only, which runs in default mode, but a deny rule matches it
    const args = `-p 'list the files' --output-format stream-json --allowedTools 'Bash(git log:*)' --disallowedTools 'Bash(ls:*)'`;
    const out = await pipe(args, `jq -r '(select(.subtype=="init") | .permissionMode), (select(.type=="result") | .permission_denials[] | "\\(.tool_name) \\(.tool_use_id) \\(.tool_input.command)")'`);
    expect(out).toBe('default\nBash toolu_1 ls\n');
  });
});

describe('duration_api_ms', () => {
  it('counts the time the model took, not the time the tools took', async () => {
    const slow = await openCliProject('shapes-slow', { env: { MODEL_ID: 'claude-sonnet-4-5' }, server: { eventDelayMs: 25 } });
    try {
      // Not read-only (touch), so it runs after the reply has ended, not while it still streams: none of its second
      // falls inside a model call.
      slow.server.enqueue({ content: [bashUse('toolu_1', 'sleep 1 && touch slept')], stop_reason: 'tool_use' }, { content: [{ type: 'text', text: 'slept' }], stop_reason: 'end_turn' });
      const run = await runCli(['-p', 'sleep', '--output-format', 'json', RUN_EVERYTHING], { cwd: slow.dir, env: slow.env }); // its touch must run
      expect(run.code, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as { duration_ms: number; duration_api_ms: number };
      // Two streamed replies of at least 7 frames each, 25 ms before every frame after the first.
      expect(result.duration_api_ms).toBeGreaterThanOrEqual(2 * 6 * 25);
      // The second of sleep is the tool's, outside every model call.
      expect(result.duration_ms - result.duration_api_ms).toBeGreaterThanOrEqual(1000);
    } finally {
      await slow.close();
    }
  });
});

describe('--output-format json in Claude Code shape', () => {
  it('one result object; jq .result, .total_cost_usd and .session_id read it', async () => {
    twoTurns();
    const saved = join(project.dir, '.result.json');
    expect(await pipe(`-p 'list the files' --output-format json`, `tee ${saved} | jq -r '.result'`)).toBe('Results: main.py\nnotes.txt\n');
    const jq = async (filter: string) => (await exec('bash', ['-c', `cat ${saved} | ${filter}`])).stdout;
    const cost = Number(await jq(`jq -r '.total_cost_usd'`));
    expect(cost).toBeCloseTo(dollars(FIRST_USAGE, SONNET_45) + dollars(SECOND_USAGE, SONNET_45), 12);
    expect(cost).toBeGreaterThan(0);
    const [sessionId, subtype, denials] = (await jq(`jq -r '.session_id, .subtype, (.permission_denials | length)'`)).trim().split('\n');
    expect(sessionId).toMatch(UUID);
    expect(subtype).toBe('success');
    expect(denials).toBe('0');
  });

  it('the keys of a result, in the order Claude Code prints them, then agentloop’s', async () => {
    twoTurns();
    const run = await runCli(['-p', 'list the files', '--output-format', 'json'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    // Claude Code 2.1.197's keys in its order (test/cli/sdk/claudeCode.json has them for the Agent SDK), then agentloop's.
    expect(Object.keys(JSON.parse(run.stdout))).toEqual([
      'type',
      'subtype',
      'is_error',
      'api_error_status',
      'duration_ms',
      'duration_api_ms',
      'ttft_ms',
      'ttft_stream_ms',
      'time_to_request_ms',
      'num_turns',
      'result',
      'stop_reason',
      'session_id',
      'total_cost_usd',
      'usage',
      'modelUsage',
      'permission_denials',
      'terminal_reason',
      'fast_mode_state',
      'uuid',
      'exit_reason',
    ]);
  });

  it('a run stopped by --max-turns: error_max_turns, is_error, and why in errors', async () => {
    project.server.enqueue({ content: [bashUse('toolu_1', 'ls')], stop_reason: 'tool_use', model: ANSWERING_MODEL, usage: FIRST_USAGE });
    const run = await runCli(['-p', 'list the files', '--output-format', 'json', '--max-turns', '1'], { cwd: project.dir, env: project.env });
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ type: 'result', subtype: 'error_max_turns', is_error: true, num_turns: 1, exit_reason: 'max_turns' });
    expect(result.errors).toEqual([expect.stringContaining('--max-turns')]);
    expect(result.total_cost_usd).toBeCloseTo(dollars(FIRST_USAGE, SONNET_45), 12);
  });

  it("a model call the API refuses: reported as Claude Code does (subtype success, is_error, the API error's text and status), the error in errors, no cost", async () => {
    project.server.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'max_tokens: too large' } });
    const run = await runCli(['-p', 'hi', '--output-format', 'json'], { cwd: project.dir, env: project.env });
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ subtype: 'success', is_error: true, total_cost_usd: 0, permission_denials: [], api_error_status: 400, terminal_reason: 'completed' });
    expect(result.result).toBe('API Error: 400 max_tokens: too large');
    expect(result.errors).toEqual([expect.stringContaining('max_tokens: too large')]);
    expect(result.duration_api_ms).toBeGreaterThanOrEqual(0);
  });

  it("text output: a model call the API refuses prints Claude Code's 'API Error: STATUS MESSAGE' as the answer", async () => {
    project.server.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'max_tokens: too large' } });
    const run = await runCli(['-p', 'hi'], { cwd: project.dir, env: project.env });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('API Error: 400 max_tokens: too large\n');
  });
});
