/**
 * Each mistake, run for real (the machine with one swap, the demo's scripted model, the real bash
 * tool in a scratch directory), shows its symptom; the correct run of the same script does not.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { apiErrorFor } from '../../src/mistakes/api.js';
import { MISTAKES } from '../../src/mistakes/catalog.js';
import { MISTAKE_NAMES, type MistakeName } from '../../src/mistakes/names.js';
import { formatMistakeReport, symptomOf } from '../../src/mistakes/report.js';
import { runMistake, type DemoRun, type MistakeRun } from '../../src/mistakes/run.js';
import { findSourceLine } from '../../src/mistakes/source.js';
import { findSession, readTranscript } from '../../src/transcript/store.js';
import { sessionTimeline } from '../../src/view/server/server.js';

let dir: string;
const runs = new Map<MistakeName, MistakeRun>();
// Names the scratch directory gets, so an answer that lists them is told from one that does not.
const FILES = ['alpha.txt', 'beta.md'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-mistakes-'));
  for (const file of FILES) writeFileSync(join(dir, file), file);
  for (const name of MISTAKE_NAMES) runs.set(name, await runMistake(name, { cwd: dir, home: join(dir, '.home') }));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const runOf = (name: MistakeName) => runs.get(name) as MistakeRun;
const listsFiles = (run: DemoRun) => FILES.every((f) => run.text.includes(f));

describe('the correct loop, on the script of every mistake', () => {
  it.each(MISTAKE_NAMES)('%s: every request accepted, the answer lists the real files, the saved history goes on', (name) => {
    const { correct } = runOf(name);
    expect(correct.refused).toBeUndefined();
    expect(correct.exitReason).toBe('completed');
    expect(correct.requests).toHaveLength(2);
    expect(correct.commands).toEqual(['ls -A']);
    expect(listsFiles(correct)).toBe(true);
    expect(correct.next.problems).toEqual([]);
  });
});

describe('the mistakes that make the history invalid: the request, the validator and the API agree', () => {
  it('forget-tool-result: the output ran and was shown, but the next request ends with the unanswered tool_use', () => {
    const { mistaken } = runOf('forget-tool-result');
    expect(mistaken.commands).toEqual(['ls -A']);
    expect(mistaken.refused?.index).toBe(1);
    expect(mistaken.refused?.request.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(mistaken.refused?.verdict.problems).toEqual(['messages[1] (assistant) tool_use toolu_demo_01 has no tool_result in the next message']);
    expect(mistaken.refused?.verdict.apiError).toBe(
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_demo_01. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
    expect(mistaken.exitReason).toBe('model_error');
    expect(mistaken.error).toBe(mistaken.refused?.verdict.apiError);
  });

  it('forget-assistant: the tool_result lands in the user message, answering a tool_use the history never had', () => {
    const { mistaken } = runOf('forget-assistant');
    const sent = mistaken.refused?.request.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(['user']);
    expect(sent.some((m) => m.role === 'assistant')).toBe(false);
    expect(mistaken.refused?.verdict.problems).toContain('messages[0] (user) has a tool_result for unexpected tool_use_id toolu_demo_01');
    expect(mistaken.refused?.verdict.apiError).toMatch(/^messages\.0\.content\.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_demo_01\. /);
    expect(mistaken.exitReason).toBe('model_error');
  });

  it('unbound-result: the tool_result has no tool_use_id, and the API names the missing field', () => {
    const { mistaken } = runOf('unbound-result');
    const results = mistaken.refused?.request.messages[2]?.content;
    expect(Array.isArray(results) && results[0]).toMatchObject({ type: 'tool_result' });
    expect(Array.isArray(results) && results[0] && 'tool_use_id' in results[0]).toBe(false);
    expect(mistaken.refused?.verdict.problems).toContain('messages[1] (assistant) tool_use toolu_demo_01 has no tool_result in the next message');
    expect(mistaken.refused?.verdict.apiError).toBe('messages.2.content.0.tool_result.tool_use_id: Field required');
  });
});

describe('the mistakes the API accepts: the model answers worse from what it was sent', () => {
  it('drop-message: every request is the bare question again, so the model repeats the command until --max-turns', () => {
    const { mistaken } = runOf('drop-message');
    expect(mistaken.refused).toBeUndefined();
    expect(mistaken.requests.map((r) => r.messages.length)).toEqual([1, 1, 1]);
    expect(mistaken.commands).toEqual(['ls -A', 'ls -A', 'ls -A']);
    expect(mistaken.exitReason).toBe('max_turns');
    expect(listsFiles(mistaken)).toBe(false);
    // The turn bookkeeping the swapped action also does is the real one.
    expect(mistaken.requests.map((r) => r.turnCount)).toEqual([1, 2, 3]);
  });

  it('stop-reason-only: stop_reason said end_turn beside a tool_use: the run "completes" without the output, and its history is broken', () => {
    const { mistaken } = runOf('stop-reason-only');
    expect(mistaken.refused).toBeUndefined();
    expect(mistaken.requests).toHaveLength(1);
    expect(mistaken.exitReason).toBe('completed');
    expect(listsFiles(mistaken)).toBe(false);
    expect(mistaken.next.problems).toEqual(['messages[1] (assistant) tool_use toolu_demo_01 has no tool_result in the next message']);
    expect(mistaken.next.apiError).toMatch(/^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_demo_01\./);
  });
});

describe('each mistake is the real machine with one swap', () => {
  it.each(MISTAKE_NAMES)('%s: exactly its action or guard differs from agentMachine', (name) => {
    const { machine, swaps } = MISTAKES[name];
    const kinds = ['actions', 'guards', 'actors', 'delays'] as const;
    const changed = kinds.flatMap((kind) => {
      const real = agentMachine.implementations[kind] as Record<string, unknown>;
      const mine = machine.implementations[kind] as Record<string, unknown>;
      const keys = new Set([...Object.keys(real), ...Object.keys(mine)]);
      return [...keys].filter((key) => real[key] !== mine[key]).map((key) => `${kind}.${key}`);
    });
    expect(changed).toEqual([`${swaps.kind}s.${swaps.name}`]);
  });

  it.each(MISTAKE_NAMES)('%s: the line of the correct loop that prevents it is found in the sources, and the report cites it', (name) => {
    const run = runOf(name);
    const { file, line } = run.mistake.prevents;
    const found = findSourceLine(file, line);
    expect(found?.path).toBe(`src/${file}`);
    expect(found?.text.startsWith(line)).toBe(true);
    const report = formatMistakeReport(run);
    expect(report).toContain(`${found?.path}:${found?.line}: ${line}`);
    expect(report).toContain(`agentloop view --compare ${run.mistaken.sessionId} ${run.correct.sessionId}`);
    expect(symptomOf(run)).toBe(run.mistaken.refused ? 'refused' : 'degraded');
  });

  it('both runs are saved as sessions, with the request the API refused in the transcript', () => {
    const run = runOf('forget-tool-result');
    const types = (id: string) => readTranscript(findSession(join(dir, '.home'), id)).records.map((r) => r.type);
    expect(types(run.mistaken.sessionId).filter((t) => t === 'request')).toHaveLength(2);
    expect(types(run.correct.sessionId).filter((t) => t === 'request')).toHaveLength(2);
  });
});

describe('the transcript of a run that deleted messages', () => {
  it('drop-message: the viewer’s timeline finds each deletion (a request shorter than the history, then a message written over it); the correct run has none', () => {
    const { mistaken, correct } = runOf('drop-message');
    const home = join(dir, '.home');
    const cuts = sessionTimeline(home, mistaken.sessionId).truncations;
    expect(cuts.map((c) => c.length)).toEqual([1, 1]);
    const timeline = sessionTimeline(home, mistaken.sessionId);
    expect(cuts.map((c) => timeline.steps[c.step]?.state)).toEqual(['callingModel', 'callingModel']);
    expect(sessionTimeline(home, correct.sessionId).truncations).toEqual([]);
  });
});

describe('the API error texts', () => {
  it('finds nothing in a valid two-turn history', () => {
    expect(apiErrorFor(runOf('drop-message').correct.messages)).toBeUndefined();
  });
});
