/**
 * Every model call is a step of its own, in all three places that show a run: stream-json, the
 * transcript and the viewer's timeline. The run: three replies cut by max_tokens (continuations),
 * a pause_turn, an overloaded error (retry), then the answer: six model calls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { findSession, readTranscript } from '../../src/transcript/store.js';
import { graphOf } from '../../src/view/server/assets.js';
import { buildTimeline } from '../../src/view/timeline/build.js';
import { startCheckedServer } from '../support/agentServer.js';
import { cliEnv, runCli, type CliRun } from '../support/cli.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { cut, paused, SIX_CALLS } from '../support/sixCalls.js';


let server: MessagesServer;
let dir: string;
let run: CliRun;
let home: string;

beforeAll(async () => {
  server = await startCheckedServer();
  dir = mkdtempSync(join(tmpdir(), 'agentloop-steps-'));
  home = join(dir, '.home');
  server.enqueue(
    cut('part one'),
    cut('part two'),
    cut('part three'),
    paused,
    { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' }, headers: { 'retry-after-ms': '5' } },
    { content: [{ type: 'text', text: 'the end' }], stop_reason: 'end_turn' },
  );
  const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: home });
  run = await runCli(['-p', 'write a long story', '--output-format', 'stream-json', '--include-loop-events', '--max-tokens', '50'], { cwd: dir, env });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('six model calls: three continuations, a pause_turn and a retry', () => {
  it('the run completes with every request valid', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(6);
    expect(server.violations).toEqual([]);
  });

  it('stream-json: one transition into callingModel per model call, with its transitionReason', () => {
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const calls = lines.filter((l) => l.type === 'transition' && l.state === 'callingModel');
    expect(calls.map((l) => [l.turnCount, l.transitionReason])).toEqual(SIX_CALLS);
    expect(lines.filter((l) => l.type === 'request')).toHaveLength(6);
  });

  it('the transcript: the same six steps, each with its request; the retry on its waitingToRetry step', () => {
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) as string) as { session_id: string };
    const { records } = readTranscript(findSession(home, result.session_id));
    const calls = records.filter((r) => r.type === 'transition' && r.state === 'callingModel');
    expect(calls.map((r) => r.type === 'transition' && [r.turnCount, r.transitionReason])).toEqual(SIX_CALLS);
    expect(records.filter((r) => r.type === 'request')).toHaveLength(6);

    const timeline = buildTimeline(records, graphOf(agentMachine));
    const steps = timeline.steps.map((s, i) => ({ ...s, i })).filter((s) => s.state === 'callingModel');
    expect(steps.map((s) => [s.turnCount, s.transitionReason])).toEqual(SIX_CALLS);
    // Each model call's step holds its own request, so every turn's request can be viewed.
    expect(steps.map((s) => timeline.requests.filter((r) => r.step === s.i).length)).toEqual([1, 1, 1, 1, 1, 1]);
    const waiting = timeline.steps.find((s) => s.state === 'waitingToRetry');
    expect(waiting?.retry).toMatchObject({ attempt: 1, delayMs: 5, error: expect.stringContaining('Overloaded') });
    expect(timeline.steps.at(-1)).toMatchObject({ state: 'done', exitReason: 'completed' });
  });
});
