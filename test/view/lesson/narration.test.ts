/**
 * Each step's sentence against the records of that step, for the demo, every mistake (and its
 * correct run) and the run that takes every kind of model call: the runs are real (the machine, the
 * bash tool, the transcript), the sentences come from the viewer's timeline, and the records are
 * replayed here on their own, independently of the timeline's code. Every claim a sentence makes
 * (a message, a count, a stop_reason, needsFollowUp, a guard, a tool_result and its id, a request
 * and what it adds) must be what the records of that step show; a sentence may name no message
 * that is not in the history at its step, except as one the loop deleted.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../../src/core/model.js';
import { machineGraph } from '../../../src/diagram/graph.js';
import { agentMachine } from '../../../src/machine/agentMachine.js';
import { runMistake } from '../../../src/mistakes/run.js';
import { MISTAKE_NAMES } from '../../../src/mistakes/names.js';
import { chapterTools } from '../../../src/run/defaultTools.js';
import { runAgent } from '../../../src/run/runAgent.js';
import { DEMO_MODEL_ID, DEMO_PROMPT, demoModel } from '../../../src/scripted/demo.js';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import { listSessions, readTranscript } from '../../../src/transcript/store.js';
import { readOrder, type ReadRecord } from '../../../src/view/timeline/read.js';
import { buildTimeline, type Timeline } from '../../../src/view/timeline/build.js';
import { checkStep } from '../../support/narration.js';
import { cut, paused } from '../../support/sixCalls.js';

const graph = machineGraph(agentMachine);
let dir: string;
const runs: Array<{ label: string; timeline: Timeline; order: ReadRecord[] }> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-narration-'));
  const cwd = join(dir, 'project');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'notes.txt'), 'n');
  const home = join(dir, 'home');
  await runAgent(DEMO_PROMPT, { model: DEMO_MODEL_ID, modelCall: demoModel().call, cwd, tools: chapterTools({ cwd }), session: { home, label: 'demo' } });
  for (const name of MISTAKE_NAMES) await runMistake(name, { cwd, home });
  const six = scriptedModel([cut('one'), cut('two'), cut('three'), paused, { error: new ModelError('overloaded', 'Overloaded', { status: 529, retryAfterMs: 5 }) }, reply.text('the end')]);
  await runAgent('a long story', { model: 'scripted', modelCall: six.call, tools: [], session: { home, label: 'six calls' } });
  for (const session of listSessions(home)) {
    const transcript = readTranscript(session.path);
    runs.push({
      label: session.label ?? session.id,
      timeline: buildTimeline(transcript.records, graph, transcript.problems, transcript.damaged),
      order: readOrder(transcript.records, transcript.damaged),
    });
  }
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('every sentence says what the records of its step show', () => {
  it('covers the demo, every mistake with its correct run, and a run of continuations, a pause and a retry', () => {
    const labels = runs.map((r) => r.label).sort();
    expect(labels).toEqual(
      ['demo', 'six calls', ...MISTAKE_NAMES.flatMap((n) => [`mistake ${n}`, `correct run (for mistake ${n})`])].sort(),
    );
  });

  it('names only messages of the history at its step, and counts, stop_reasons, flags, guards and ids as recorded', () => {
    let checked = 0;
    for (const { label, timeline, order } of runs) {
      timeline.steps.forEach((step, i) => {
        const context = `${label}, step ${i + 1} (${step.state}): ${step.sentence}`;
        expect(step.sentence, context).not.toBe('');
        try {
          checkStep(step.sentence, order, step.records);
        } catch (error) {
          throw new Error(`${context}\n${(error as Error).message}`);
        }
        checked += 1;
      });
    }
    expect(checked).toBeGreaterThan(60);
  });

  it('shows stop_reason on every reply step, and the chapter’s step on every step of the demo', () => {
    for (const { timeline } of runs) {
      for (const step of timeline.steps.filter((s) => s.kind === 'reply')) expect(step.sentence).toMatch(/stop_reason \w+/);
    }
    const demo = runs.find((r) => r.label === 'demo')?.timeline as Timeline;
    expect(demo.steps.map((s) => [s.lesson.marks, s.state])).toEqual([
      ['①②③', 'callingModel'],
      ['④', 'checkingReply'],
      ['⑤', 'executingTools'],
      ['⑥', 'appendingResults'],
      ['⑦', 'callingModel'],
      ['⑦', 'checkingReply'],
      ['⑧', 'done'],
    ]);
    // transitionReason is tool_result from the chapter's ⑥ on, as the results are written.
    expect(demo.steps.map((s) => s.transitionReason)).toEqual([null, null, null, 'tool_result', 'tool_result', 'tool_result', null]);
  });

  it('tells each mistake as it went', () => {
    const sentences = (label: string) => runs.find((r) => r.label === label)?.timeline.steps.map((s) => s.sentence) ?? [];
    expect(sentences('mistake forget-tool-result')).toContainEqual(expect.stringMatching(/^The results of toolu_demo_01 are not appended: state\.messages still has 2 messages/));
    expect(sentences('mistake forget-assistant')).toContainEqual(expect.stringMatching(/but the loop does not append it: state\.messages still ends at messages\[0\]\. needsFollowUp is true/));
    // The results join the prompt's user message (roles alternate): messages[0] is written over, not appended.
    expect(sentences('mistake forget-assistant')).toContainEqual('The loop writes messages[0] (1 tool_result block for toolu_demo_01), joined to the user message already there; transitionReason is tool_result.');
    expect(sentences('mistake unbound-result')).toContainEqual(expect.stringMatching(/appends messages\[2\], which holds a tool_result without tool_use_id/));
    expect(sentences('mistake drop-message')).toContainEqual(expect.stringMatching(/^Before the call the loop deleted messages\[1\], messages\[2\] from state\.messages/));
    expect(sentences('mistake stop-reason-only')).toContainEqual(
      expect.stringMatching(/stop_reason end_turn and 1 tool_use block \(\$ ls -A\)\. needsFollowUp is true\. The teaching check .* would stop here, unlike the tool_use blocks\. So the loop stops here\./),
    );
  });
});
