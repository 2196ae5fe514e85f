/**
 * A server that breaks the protocol or sends what the API would refuse (issue 24, failures 3 to 8), through the CLI
 * as a process against the local Messages API server, which refuses (and records) every request whose history is
 * invalid. Such a reply is refused: nothing of it joins the history, none of its tools that had not started runs, it
 * is retried, and the run goes on; a read-only tool of it that had started is recorded and reported.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { bashUse } from '../support/agentServer.js';
import { runCli } from '../support/cli.js';
import type { MessagesServer, ReplyStep, SseFrame } from '../support/messagesServer.js';
import { cliProjectPerTest } from '../support/project.js';
import { beforeEnd, blockDelta, blockStart, blockStop, textFrames, toolUseFrames } from '../support/sseFrames.js';
import { transcripts } from '../support/sessions.js';

let server: MessagesServer;
let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;

cliProjectPerTest('protocol', (project) => ({ server, dir, home, env } = project), { noViolations: true });

const good: ReplyStep = { content: [{ type: 'text', text: 'Fine.' }], stop_reason: 'end_turn' };
type Line = Record<string, unknown> & { type: string };
/** For a test that runs the CLI twice (a run, then --continue): under a loaded machine each may take seconds. */
const TWO_RUNS = 60_000;
const linesOf = (text: string): Line[] => text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Line);
const records = () => linesOf([...transcripts(home).values()][0] ?? '');

function expectValidRequests(): void {
  for (const request of server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
}

/** Runs `-p go` as JSON; the run is expected to complete with the good reply after retrying the bad one. */
async function runRetried(bad: ReplyStep, extra: string[] = []) {
  server.enqueue(bad, good);
  const run = await runCli(['-p', 'go', '--output-format', 'json', ...extra], { cwd: dir, env });
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ exit_reason: 'completed', result: 'Fine.' });
  expect(server.requests).toHaveLength(2);
  // Nothing of the bad reply was kept: the retry sends the same history.
  expect(server.requests[1]?.body?.messages).toEqual(server.requests[0]?.body?.messages);
  expectValidRequests();
  return run;
}

describe('a reply the API would refuse to take back', () => {
  for (const [name, text] of [
    ['empty', ''],
    ['whitespace-only', ' \n\t '],
  ] as const) {
    it(`a reply whose only block is an ${name} text block: left out, the session goes on`, async () => {
      server.enqueue({ content: [{ type: 'text', text }], stop_reason: 'end_turn' });
      const first = await runCli(['-p', 'go', '--output-format', 'json'], { cwd: dir, env });
      expect(first.code, first.stderr).toBe(0);
      server.enqueue(good);
      const next = await runCli(['--continue', '-p', 'and now?', '--output-format', 'json'], { cwd: dir, env });
      expect(next.code, next.stderr).toBe(0);
      expect(JSON.parse(next.stdout)).toMatchObject({ exit_reason: 'completed', result: 'Fine.' });
      expectValidRequests();
      // The blank reply added nothing: the next question joined the first in one user message.
      expect(server.requests[1]?.body?.messages).toMatchObject([{ role: 'user', content: [{ text: 'go' }, { text: 'and now?' }] }]);
    }, TWO_RUNS);
  }

  it('a tool_use id outside ^[a-zA-Z0-9_-]+$: refused and retried, its command never runs', async () => {
    await runRetried({ content: [bashUse('toolu_../../x"<>', 'touch BADID')], stop_reason: 'tool_use' });
    expect(existsSync(join(dir, 'BADID'))).toBe(false);
  });
});

describe('a stream that breaks the protocol is refused, retried, never appended', () => {
  it('a tool_use after message_stop never runs', async () => {
    const rewrite = (frames: SseFrame[]) => [...frames, ...toolUseFrames(1, 'toolu_after', 'bash', { command: 'touch AFTER_STOP' })];
    await runRetried({ content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn', rewrite });
    expect(existsSync(join(dir, 'AFTER_STOP'))).toBe(false);
  });

  const replacing = [
    blockStart(0, { type: 'tool_use', id: 'toolu_replacing', name: 'bash', input: {} }),
    blockDelta(0, { type: 'input_json_delta', partial_json: '{"command":"touch REPLACED"}' }),
    blockStop(0),
  ];
  it('a second content_block_start for a stopped block: the replacing tool never runs', async () => {
    await runRetried({ content: [{ type: 'text', text: 'Let me see.' }], stop_reason: 'tool_use', rewrite: (frames) => beforeEnd(frames, replacing) });
    expect(existsSync(join(dir, 'REPLACED'))).toBe(false);
  });

  it('a second content_block_start for an open text block: the replacing tool never runs', async () => {
    const rewrite = (frames: SseFrame[]) => beforeEnd(frames, [blockStart(1, { type: 'text', text: '' }), blockDelta(1, { type: 'text_delta', text: 'Half' }), ...replacing.map((f) => ({ ...f, data: { ...(f.data as object), index: 1 } }))]);
    await runRetried({ content: [{ type: 'text', text: 'Let me see.' }], stop_reason: 'tool_use', rewrite });
    expect(existsSync(join(dir, 'REPLACED'))).toBe(false);
  });

  it('a delta of the wrong kind for its block', async () => {
    const rewrite = (frames: SseFrame[]) => beforeEnd(frames, [...textFrames(1, 'x').slice(0, 1), blockDelta(1, { type: 'input_json_delta', partial_json: '{}' })]);
    await runRetried({ content: [{ type: 'text', text: 'Hm.' }], stop_reason: 'end_turn', rewrite });
  });
});

describe('usage the server cannot have meant', () => {
  for (const [name, usage] of [
    ['negative', { input_tokens: -6_000_000_000 }],
    ['absurd', { input_tokens: 1e295 }],
    ['fractional', { output_tokens: 2.5 }],
  ] as const) {
    it(`${name} token counts: the reply is refused and retried; the cost stays a real figure`, async () => {
      const run = await runRetried({ ...good, usage }, ['--model', 'claude-sonnet-4-5', '--max-budget-usd', '5']);
      const result = JSON.parse(run.stdout) as { total_cost_usd: number };
      expect(Number.isFinite(result.total_cost_usd) && result.total_cost_usd >= 0).toBe(true);
    });
  }

  it('the budget still stops the run after a server sent a negative cost', async () => {
    const loop = (id: string): ReplyStep => ({ content: [bashUse(id, 'ls')], stop_reason: 'tool_use', usage: { input_tokens: 1000 } });
    server.enqueue({ ...loop('toolu_neg'), usage: { input_tokens: -6_000_000_000 } }, loop('toolu_1'), loop('toolu_2'), loop('toolu_3'), good);
    const run = await runCli(['-p', 'go', '--output-format', 'json', '--model', 'claude-sonnet-4-5', '--max-budget-usd', '0.001'], { cwd: dir, env });
    expect(JSON.parse(run.stdout)).toMatchObject({ exit_reason: 'max_budget' });
    expect(server.requests).toHaveLength(2);
  });
});

describe('a refused reply whose read-only tool had started', () => {
  const started = { id: 'toolu_ls', command: 'ls' };
  const CASES: Array<[string, ReplyStep]> = [
    ['a second tool_use with its id', { content: [bashUse(started.id, started.command), bashUse(started.id, 'touch SECOND')], stop_reason: 'tool_use' }],
    [
      'a second content_block_start for its index',
      { content: [bashUse(started.id, started.command)], stop_reason: 'tool_use', rewrite: (frames) => beforeEnd(frames, toolUseFrames(0, 'toolu_second', 'bash', { command: 'touch SECOND' })) },
    ],
    [
      'a tool_use after message_stop',
      { content: [bashUse(started.id, started.command)], stop_reason: 'tool_use', rewrite: (frames) => [...frames, ...toolUseFrames(1, 'toolu_second', 'bash', { command: 'touch SECOND' })] },
    ],
  ];
  for (const [name, bad] of CASES) {
    it(`${name}: the start is recorded and reported, the reply is not kept, the run goes on`, async () => {
      server.enqueue(bad, good);
      const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--verbose'], { cwd: dir, env });
      expect(run.code, run.stderr).toBe(0);
      expect(existsSync(join(dir, 'SECOND'))).toBe(false);
      expect(server.requests[1]?.body?.messages).toEqual(server.requests[0]?.body?.messages);
      // Recorded: its tool_start, then the refusal naming it; no message holds any of the reply.
      expect(records().filter((r) => r.type === 'tool_start')).toMatchObject([{ block: { id: started.id, input: { command: 'ls' } } }]);
      expect(records().filter((r) => r.type === 'reply_refused')).toMatchObject([{ startedToolIds: [started.id] }]);
      expect(JSON.stringify(records().filter((r) => r.type === 'message'))).not.toContain(started.id);
      // Reported: on stdout (stream-json) and on stderr.
      expect(linesOf(run.stdout).filter((l) => l.type === 'reply_refused')).toMatchObject([{ startedToolIds: [started.id] }]);
      expect(run.stderr).toContain(`a reply was refused`);
      expect(run.stderr).toContain(`1 read-only tool of it had started: $ ls (${started.id})`);
      // --continue goes on from the history as it was: the refused reply's tool is not brought back.
      server.enqueue(good);
      const next = await runCli(['--continue', '-p', 'and now?', '--output-format', 'json'], { cwd: dir, env });
      expect(next.code, next.stderr).toBe(0);
      expect(JSON.stringify(server.requests[2]?.body?.messages)).not.toContain(started.id);
      expectValidRequests();
    }, TWO_RUNS);
  }

  it('with no retry left, the run fails; --continue does not bring the refused reply’s started tool back', async () => {
    const [, bad] = CASES[0] as [string, ReplyStep];
    server.enqueue(bad);
    const run = await runCli(['-p', 'go', '--output-format', 'json', '--max-retries', '0'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ exit_reason: 'model_error' });
    expect(run.stderr).toContain(`1 read-only tool of it had started: $ ls (${started.id})`);
    server.enqueue(good);
    const next = await runCli(['--continue', '-p', 'and now?', '--output-format', 'json'], { cwd: dir, env });
    expect(next.code, next.stderr).toBe(0);
    expect(server.requests[1]?.body?.messages).toMatchObject([{ role: 'user', content: [{ text: 'go' }, { text: 'and now?' }] }]);
    expectValidRequests();
  }, TWO_RUNS);

  it('a refused reply without started tools is not reported on stderr, only as a retry', async () => {
    const run = await runRetried({ content: [bashUse('toolu_bad id', 'ls')], stop_reason: 'tool_use' });
    expect(run.stderr).toBe('');
    expect(records().filter((r) => r.type === 'reply_refused')).toMatchObject([{ startedToolIds: [] }]);
  });
});
