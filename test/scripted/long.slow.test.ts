/**
 * Long agents are tested with the scripted model: it and the transcript recorder must stay linear
 * in time and memory over a run (a copy of every request made 2,000 turns take 1.1 GB).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, scriptedModel, type ScriptStep } from '../../src/scripted/model.js';
import { startSession } from '../../src/transcript/recorder.js';
import { runAgent } from '../../src/run/runAgent.js';
import { echoTool } from '../support/drive.js';

const TURNS = 10_000;
/** The stated bound: heap growth over a 10,000-turn recorded run (the history itself is ~10 MB). */
const HEAP_BOUND_MB = 150;

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

describe(`a ${TURNS.toLocaleString('en')}-turn run with the scripted model and the recorder`, () => {
  it(`keeps every request as sent and grows the heap by less than ${HEAP_BOUND_MB} MB (time per turn: npm run bench, growth)`, async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-long-'));
    const stamps: number[] = [];
    const steps: ScriptStep[] = Array.from({ length: TURNS - 1 }, (_, i) => () => {
      stamps.push(performance.now());
      return reply.toolUse([{ id: `t${i}`, name: 'echo', input: { text: `step ${i}` } }]);
    });
    steps.push(reply.text('done'));
    const model = scriptedModel(steps);
    const recorder = startSession(home, { cwd: home, model: 'scripted' }, { durable: false });
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    const result = await runAgent('go', { model: 'scripted', modelCall: model.call, tools: [echoTool()], maxTurns: TURNS, session: recorder });
    recorder.close();
    global.gc?.();
    const grownMb = (process.memoryUsage().heapUsed - before) / 1e6;

    expect(result.context.exitReason).toBe('completed');
    expect(result.context.turnCount).toBe(TURNS);
    expect(model.requests).toHaveLength(TURNS);
    expect(model.requests[TURNS - 1]?.messages).toHaveLength(2 * TURNS - 1);
    expect(model.requests[1]?.messages).toHaveLength(3); // as it was when sent
    expect(grownMb).toBeLessThan(HEAP_BOUND_MB);
    // Reported, not asserted (timing belongs to bench/growth.ts): the last thousand turns against the second.
    const per = (from: number) => ((stamps[from + 999] as number) - (stamps[from] as number)) / 999;
    const ratio = per(TURNS - 1000 - 1) / per(1000);
    console.log(`${TURNS} turns: heap +${grownMb.toFixed(0)} MB, transcript ${(statSync(recorder.path).size / 1e6).toFixed(1)} MB, per-turn ${per(1000).toFixed(3)} -> ${per(TURNS - 1001).toFixed(3)} ms (×${ratio.toFixed(2)})`);
  }, 120_000);
});
