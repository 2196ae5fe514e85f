/**
 * Timelines on which every registered card shows (test/house/cards.test.ts, test/view/cards/): each of the
 * simulator's presets (the real machine, in this process), a run that compacts its history after the API refuses a
 * request as too long, and a run cut while its first call waits for an approval (as `view --restate` shows a durable
 * run parked on Restate: the call started, no result, the page knows it waits).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelError } from '../../src/core/model.js';
import { machineGraph } from '../../src/diagram/graph.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { findSession, readTranscript } from '../../src/transcript/store.js';
import { NO_CONTEXT, type CardContext } from '../../src/view/cards/card.js';
import { PRESETS } from '../../src/view/sim/presets.js';
import { simulate } from '../../src/view/sim/simulate.js';
import { buildTimeline } from '../../src/view/timeline/build.js';
import type { AnyRecord, Timeline } from '../../src/view/timeline/shape.js';
import { echoTool } from './drive.js';

export interface CardSample {
  label: string;
  records: AnyRecord[];
  timeline: Timeline;
  context: CardContext;
}

const graph = machineGraph(agentMachine);
const sample = (label: string, records: AnyRecord[], context: CardContext = NO_CONTEXT): CardSample => ({ label, records, timeline: buildTimeline(records as never, graph), context });

/** A run whose second request the API refuses as too long: the history is compacted and the turn sent again. */
async function compacted(): Promise<AnyRecord[]> {
  const home = mkdtempSync(join(tmpdir(), 'agentloop-cardsample-'));
  try {
    const tooLong = { error: new ModelError('prompt_too_long', 'prompt is too long: 9000 tokens > 8000 maximum', { status: 400 }) };
    const model = scriptedModel([reply.toolUse([{ id: 'toolu_1', name: 'echo', input: { text: 'x' } }]), tooLong, reply.text('done')], { summary: '<summary>echoed x</summary>' });
    const run = await runAgent('echo x', { model: 'scripted', modelCall: model.call, tools: [echoTool()], session: { home } });
    return readTranscript(findSession(home, run.sessionId)).records as AnyRecord[];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** `records` up to the first tool_result: the first call has started, its result is not on record yet. */
export function cutAtFirstCall(records: readonly AnyRecord[]): { records: AnyRecord[]; id: string } {
  const start = records.find((r) => r.type === 'tool_start') as Extract<AnyRecord, { type: 'tool_start' }>;
  return { records: records.slice(0, records.findIndex((r) => r.type === 'tool_result')), id: start.block.id };
}

export async function cardSamples(): Promise<CardSample[]> {
  const presets = await Promise.all(Object.entries(PRESETS).map(async ([name, script]) => sample(`preset ${name}`, (await simulate(script)).records)));
  const demo = (presets[0] as CardSample).records;
  const waiting = cutAtFirstCall(demo);
  return [...presets, sample('compacted', await compacted()), sample('waiting for approval', waiting.records, { waiting: new Set([waiting.id]) })];
}
