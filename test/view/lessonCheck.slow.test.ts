/**
 * Every line the lesson shows, checked against the records (test/support/lessonCheck.ts): each step's
 * sentence and reason, the reply card's and the tool card's lines, the line under the state card and
 * what the loop's drawing lights, over real runs (the machine, the transcript): the demo, every
 * mistake with its correct run, the run of continuations, a pause and a retry, and 200 scripted runs
 * fast-check makes up (tool errors, several tools a turn, read-only tools that start mid-stream,
 * max_tokens, retries, a turn limit). Zero contradictions is the bar.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/core/model.js';
import type { Tool } from '../../src/core/tool.js';
import { machineGraph } from '../../src/diagram/graph.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { runMistake } from '../../src/mistakes/run.js';
import { MISTAKE_NAMES } from '../../src/mistakes/names.js';
import { defaultTools } from '../../src/run/defaultTools.js';
import { runAgent } from '../../src/run/runAgent.js';
import { DEMO_MODEL_ID, DEMO_PROMPT, demoModel } from '../../src/scripted/demo.js';
import { reply, scriptedModel, type ScriptStep } from '../../src/scripted/model.js';
import { findSession, listSessions, readTranscript } from '../../src/transcript/store.js';
import { readOrder } from '../../src/view/timeline/read.js';
import { buildTimeline } from '../../src/view/timeline/build.js';
import { checkShown } from '../support/lessonCheck.js';
import { shownSteps, shownTools } from '../support/lessonShown.js';
import { cut, paused } from '../support/sixCalls.js';

const graph = machineGraph(agentMachine);
let dir: string;
let home: string;

/** Every contradiction in the session's steps. */
function contradictions(id: string, label: string): { steps: number; found: string[]; denials: number } {
  const transcript = readTranscript(findSession(home, id));
  const t = buildTimeline(transcript.records, graph, transcript.problems, transcript.damaged);
  const run = { order: readOrder(transcript.records, transcript.damaged), ranges: t.steps.map((s) => s.records) };
  const shown = shownSteps(t);
  const found = shown.flatMap((s, i) => checkShown(s, run, i, label));
  // The tools whose card shows a denial at some step (each line of it checked above).
  const denials = new Set(shown.flatMap((s) => shownTools(s).filter((tool) => tool.lines.some((l) => l.startsWith('⛔'))).map((tool) => tool.id))).size;
  return { steps: t.steps.length, found, denials };
}

/** A tool that echoes its input, or fails when asked to; read-only (it may start while the reply streams) when `safe`. */
function probe(name: string, safe: boolean): Tool {
  return {
    name,
    description: 'echoes, or fails',
    inputSchema: { type: 'object', properties: { text: { type: 'string' }, fail: { type: 'boolean' } } },
    isConcurrencySafe: () => safe,
    run: async (input) => {
      const { text, fail } = input as { text?: string; fail?: boolean };
      if (fail) throw new Error(`${name} failed on ${text}`);
      return { content: `echo ${text}`, isError: false };
    },
  };
}

let uses = 0;
/** One scripted model call: tools asked for (some failing), an answer, a cut reply, a pause, or a retryable error. */
const stepArb: fc.Arbitrary<() => ScriptStep> = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.record({ tool: fc.constantFrom('look', 'poke'), fail: fc.boolean() }), { minLength: 1, maxLength: 3 }).map((calls) => () => reply.toolUse(calls.map((c) => ({ id: `toolu_${++uses}`, name: c.tool, input: { text: `t${uses}`, fail: c.fail } })), 'let me look')) },
  { weight: 1, arbitrary: fc.constant(() => cut('so far')) },
  { weight: 1, arbitrary: fc.constant(() => paused) },
  { weight: 1, arbitrary: fc.constant(() => ({ error: new ModelError('overloaded', 'Overloaded', { status: 529, retryAfterMs: 1 }) })) },
);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-lessoncheck-'));
  const cwd = join(dir, 'project');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'notes.txt'), 'n');
  home = join(dir, 'home');
  await runAgent(DEMO_PROMPT, { model: DEMO_MODEL_ID, modelCall: demoModel().call, cwd, tools: defaultTools({ cwd }), session: { home, label: 'demo' } });
  for (const name of MISTAKE_NAMES) await runMistake(name, { cwd, home });
  const six = scriptedModel([cut('one'), cut('two'), cut('three'), paused, { error: new ModelError('overloaded', 'Overloaded', { status: 529, retryAfterMs: 5 }) }, reply.text('the end')]);
  await runAgent('a long story', { model: 'scripted', modelCall: six.call, tools: [], session: { home, label: 'six calls' } });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('every line the lesson shows is what the records show', () => {
  it('in the demo, every mistake with its correct run, and the run of continuations, a pause and a retry', () => {
    const sessions = listSessions(home);
    expect(sessions).toHaveLength(2 + 2 * MISTAKE_NAMES.length);
    let steps = 0;
    const found: string[] = [];
    for (const s of sessions) {
      const c = contradictions(s.id, s.label ?? s.id);
      steps += c.steps;
      found.push(...c.found);
    }
    expect(found).toEqual([]);
    expect(steps).toBeGreaterThan(60);
  });

  it('in a run whose permission gate denies calls (by a rule, by the mode): each denial on its card is what the records say', async () => {
    const cwd = join(dir, 'gated');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'alpha.txt'), 'alpha\n');
    const model = scriptedModel([
      reply.toolUse([{ id: 'toolu_r', name: 'Read', input: { file_path: join(cwd, 'alpha.txt') } }, { id: 'toolu_w', name: 'Write', input: { file_path: join(cwd, 'b.txt'), content: 'b' } }]),
      reply.toolUse([{ id: 'toolu_e', name: 'Edit', input: { file_path: join(cwd, 'alpha.txt'), old_string: 'alpha', new_string: 'b' } }]),
      reply.text('done'),
    ]);
    const result = await runAgent('go', { model: 'scripted', modelCall: model.call, tools: defaultTools({ cwd }), cwd, permissions: { mode: 'default', deny: ['Write'] }, session: { home: join(dir, 'gated-home'), label: 'gated' } });
    const saved = home;
    home = join(dir, 'gated-home');
    try {
      const c = contradictions(result.sessionId, 'gated');
      expect(c.found).toEqual([]);
      expect(c.denials).toBe(2);
    } finally {
      home = saved;
    }
  });

  it('in 200 scripted runs fast-check makes up: tool errors, several tools, max_tokens, pauses, retries, a turn limit', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 0, maxLength: 5 }), fc.integer({ min: 2, max: 6 }), fc.boolean(), async (steps, maxTurns, safe) => {
        const model = scriptedModel([...steps.map((make) => make()), reply.text('done')]);
        const result = await runAgent('go', {
          model: 'scripted', modelCall: model.call, tools: [probe('look', safe), probe('poke', false)], maxTurns, retryBaseMs: 1, retryMaxMs: 2,
          session: { home: join(dir, 'random'), label: `random ${++runs}` },
        });
        const saved = home;
        home = join(dir, 'random');
        try {
          const c = contradictions(result.sessionId, `random ${runs}`);
          expect(c.found).toEqual([]);
        } finally {
          home = saved;
        }
      }),
      { numRuns: 200, seed: 39 },
    );
    expect(runs).toBeGreaterThanOrEqual(200);
  }, 300_000);
});
