/**
 * One writer per session (issue 24, items 1-2), with the CLI as real processes against the local
 * Messages API server: two `--continue -p` started together at offsets of 0-900 ms, refused or
 * waiting; `--resume ID` while ID runs. The server holds every model call until both runs have
 * settled how they start (one refused, or waiting, or, on code without the lock, both asking the
 * model), so what is checked never depends on which of the two got there first.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RequestBody, Step } from '../support/messagesServer.js';
import { historyProblems } from '../../src/history/validate.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { restoreConversation } from '../../src/transcript/resume.js';
import { readTranscript } from '../../src/transcript/store.js';
import { RUN_EVERYTHING, startCli, type CliRun } from '../support/cli.js';
import { markedCliProjectPerTest, transcripts, waitFor } from '../support/sessions.js';
import type { CliProject } from '../support/project.js';

let project: CliProject;
markedCliProjectPerTest('onewriter', (p) => (project = p));

const WAITING = /is in use by process (\d+) \(running for [^)]*\): waiting until it ends/;
const REFUSED = /^agentloop: session \S+ is in use by process (\d+) \(running for \d+ s: agentloop [^)]*\): add --wait-for-session to wait until it ends\n$/;

/** The question a request answers: the `q-...` word of its last user message. */
function questionOf(body: RequestBody): string | undefined {
  const last = body.messages.at(-1);
  const blocks = typeof last?.content === 'string' ? [{ type: 'text', text: last.content }] : (last?.content ?? []);
  if (blocks.some((b) => b.type === 'tool_result')) return undefined;
  return blocks.map((b) => ('text' in b ? (b.text as string) : '')).join(' ').match(/q-\w+/)?.[0];
}

/** A question is answered by a writing tool (`echo Q >> log.txt`), then by a text naming it. */
function answer(body: RequestBody): Step {
  const question = questionOf(body);
  if (question) {
    const command = `echo ${question} >> log.txt`;
    return { content: [{ type: 'tool_use', id: `toolu_${question.replace('-', '_')}`, name: 'bash', input: { command } }], stop_reason: 'tool_use' };
  }
  return { content: [{ type: 'text', text: `answered ${body.messages.length}` }], stop_reason: 'end_turn' };
}

/** The gate of the model calls now: each waits for it, then is answered. */
let gate: Promise<void> = Promise.resolve();
const gatedModel: Step = async (body) => {
  await gate;
  return answer(body);
};

/** A finished session in the project's directory, for `--continue` to find. */
async function firstSession(): Promise<string> {
  const model = scriptedModel([reply.text('ready')]);
  const run = await runAgent('q-start', { model: 'claude-test', modelCall: model.call, tools: [], session: { home: project.home }, cwd: project.dir });
  return run.sessionId;
}

type Run = ReturnType<typeof startCli>;

/** Has the start of `a` and `b` settled: one ended, one waits, or (code without the lock) both asked the model? */
function settled(runs: Run[], ended: Set<Run>): boolean {
  // While the model is held, only two runs that both write the session can have asked it.
  return ended.size > 0 || runs.some((r) => WAITING.test(r.output().stderr)) || project.server.requests.length >= 2;
}

/** Starts two `--continue -p` runs `offsetMs` apart, holds the model until their start has settled, and waits for both. */
async function twoContinues(offsetMs: number, wait: boolean): Promise<{ results: CliRun[]; pids: number[]; questions: string[] }> {
  let open!: () => void;
  gate = new Promise<void>((resolve) => (open = resolve));
  if (project.server.pending < 8) project.server.enqueue(...Array.from({ length: 40 }, () => gatedModel));
  const questions = [`q-a${offsetMs}`, `q-b${offsetMs}`];
  // The tool writes (echo >> log.txt): allowed, as -p denies what Claude Code's -p would ask about.
  const args = (q: string) => ['--continue', '-p', q, '--output-format', 'json', RUN_EVERYTHING, ...(wait ? ['--wait-for-session'] : [])];
  const first = startCli(args(questions[0] as string), { cwd: project.dir, env: project.env });
  if (offsetMs > 0) await new Promise((resolve) => setTimeout(resolve, offsetMs));
  const second = startCli(args(questions[1] as string), { cwd: project.dir, env: project.env });
  const runs = [first, second];
  const ended = new Set<Run>();
  for (const run of runs) void run.done.then(() => ended.add(run));
  await waitFor('both runs to settle how they start', () => settled(runs, ended), 60_000);
  open();
  const results = await Promise.all(runs.map((r) => r.done));
  return { results, pids: runs.map((r) => r.child.pid as number), questions };
}

/** The session's history as `--continue` would restore it, with its problems. */
function history(id: string) {
  const transcript = readTranscript(join(project.home, 'sessions', `${id}.jsonl`));
  return { transcript, restored: restoreConversation(transcript.records) };
}

const userQuestions = (messages: ReturnType<typeof history>['restored']['messages']) =>
  messages.flatMap((m) => (m.role === 'user' && typeof m.content !== 'string' ? m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])) : []));

const log = () => (existsSync(join(project.dir, 'log.txt')) ? readFileSync(join(project.dir, 'log.txt'), 'utf8').split('\n').filter(Boolean) : []);

describe('two --continue -p started together (0-900 ms apart)', () => {
  it('refuses exactly one, before it writes, naming the other; no turn lost, nothing answered or run twice', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 900 }), async (offsetMs) => {
        const id = await firstSession();
        const before = transcripts(project.home).get(`${id}.jsonl`) as string;
        const { results, pids, questions } = await twoContinues(offsetMs, false);
        const refused = results.findIndex((r) => r.code === 2);
        const ran = 1 - refused;
        expect(results.map((r) => r.code).sort(), JSON.stringify(results.map((r) => r.stderr))).toEqual([0, 2]);
        const loser = results[refused] as CliRun;
        expect(loser.stderr).toMatch(REFUSED);
        expect(Number(REFUSED.exec(loser.stderr)?.[1])).toBe(pids[ran]);
        expect(loser.stdout).toBe('');
        expect(JSON.parse((results[ran] as CliRun).stdout)).toMatchObject({ session_id: id, is_error: false });

        const { transcript, restored } = history(id);
        expect(transcript.problems).toEqual([]);
        expect(transcript.records.length).toBeGreaterThan(before.trim().split('\n').length);
        expect(JSON.stringify(transcript.records)).not.toContain(questions[refused]);
        expect(restored.problems).toEqual([]);
        expect(userQuestions(restored.messages).filter((q) => q.startsWith('q-'))).toEqual(['q-start', questions[ran]]);
        expect(log()).toEqual([questions[ran]]);
        expect(project.server.violations).toEqual([]);
        for (const request of project.server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
        resetProject();
      }),
      { numRuns: 6, examples: [[0], [900]] },
    );
  }, 600_000);

  it('with --wait-for-session: one waits, naming the other, then goes on after it; both turns kept, in order, each once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 900 }), async (offsetMs) => {
        const id = await firstSession();
        const { results, pids, questions } = await twoContinues(offsetMs, true);
        for (const r of results) expect(r.code, r.stderr).toBe(0);
        const waited = results.findIndex((r) => WAITING.test(r.stderr));
        expect(waited).not.toBe(-1);
        expect(results.filter((r) => WAITING.test(r.stderr))).toHaveLength(1);
        expect(Number(WAITING.exec((results[waited] as CliRun).stderr)?.[1])).toBe(pids[1 - waited]);
        const order = [questions[1 - waited], questions[waited]];

        const { transcript, restored } = history(id);
        expect(transcript.problems).toEqual([]);
        expect(restored.problems).toEqual([]);
        expect(userQuestions(restored.messages).filter((q) => q.startsWith('q-'))).toEqual(['q-start', ...order]);
        expect(log()).toEqual(order);
        const finished = transcript.records.filter((r) => r.type === 'result');
        expect(finished.map((r) => r.type === 'result' && r.exitReason)).toEqual(['completed', 'completed', 'completed']);
        expect(project.server.violations).toEqual([]);
        for (const request of project.server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
        resetProject();
      }),
      { numRuns: 4, examples: [[0], [900]] },
    );
  }, 600_000);
});

/** Between property runs: a new sessions folder, log and request list (the project is per test). */
function resetProject(): void {
  rmSync(join(project.home, 'sessions'), { recursive: true, force: true });
  rmSync(join(project.dir, 'log.txt'), { force: true });
  project.server.requests.length = 0;
}
