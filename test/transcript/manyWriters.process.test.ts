/**
 * "Never loses a turn" (issue 24, items 1-2), as a property over real processes: 3-4 `--continue -p` runs on one
 * session, started at random offsets (0-1.5 s), each waiting (`--wait-for-session`) or not, and at times one of them
 * killed with SIGKILL at a random moment (waiting, holding the lock, mid-tool, ...). Each question is answered by a
 * writing tool (`echo Q >> log.txt`), then by a text. Whatever the plan:
 * - a run that waits, and is not killed, ends 0: its question is in the history once, its tool ran once;
 * - a run that does not wait ends 0 the same way, or 2 with the one refusal line naming a live run of the plan and
 *   nothing of it written or run;
 * - the killed run's question is in the history and the log at most once; its lock blocks nobody;
 * - the history restores without problems, in the order the tools ran, and every request was valid.
 * As root and as nobody (the files and locks are then nobody's).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import type { MessageParam } from '../../src/core/messages.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { restoreConversation } from '../../src/transcript/resume.js';
import { readTranscript } from '../../src/transcript/store.js';
import type { RequestBody, Step } from '../support/messagesServer.js';
import { RUN_EVERYTHING, startCli, type CliRun } from '../support/cli.js';
import type { CliProject } from '../support/project.js';
import { testUsers, type TestUser } from '../support/users.js';
import { markedCliProjectPerTest } from '../support/sessions.js';

let project: CliProject;
let marker: string;
markedCliProjectPerTest('manywriters', (p, m) => {
  project = p;
  marker = m;
});

const REFUSED = /^agentloop: session \S+ is in use by process (\d+) \(running for \d+ s: agentloop [^\n]*\): add --wait-for-session to wait until it ends\n$/;

/** The `q-...` words of a message's own text blocks (not of tool results). */
function questionsIn(message: MessageParam | undefined): string[] {
  if (message === undefined) return [];
  const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  return blocks.flatMap((b) => (b.type === 'text' ? (b.text.match(/q-\w+/g) ?? []) : []));
}

/** The newest question of the last user message gets a writing tool; a tool's result gets a text. */
function answer(body: RequestBody): Step {
  const question = questionsIn(body.messages.at(-1) as MessageParam).at(-1);
  if (question === undefined) return { content: [{ type: 'text', text: `answered ${body.messages.length}` }], stop_reason: 'end_turn' };
  const command = `sleep 0.2; echo ${question} >> log.txt # ${marker}`;
  return { content: [{ type: 'tool_use', id: `toolu_${question.replace(/-/g, '_')}`, name: 'bash', input: { command } }], stop_reason: 'tool_use' };
}

interface Plan {
  runs: Array<{ offsetMs: number; wait: boolean }>;
  kill?: { which: number; afterMs: number };
}

const plans: fc.Arbitrary<Plan> = fc.record(
  {
    runs: fc.array(fc.record({ offsetMs: fc.integer({ min: 0, max: 1500 }), wait: fc.boolean() }), { minLength: 3, maxLength: 4 }),
    kill: fc.record({ which: fc.nat(3), afterMs: fc.integer({ min: 0, max: 2500 }) }),
  },
  { requiredKeys: ['runs'] },
);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A finished session in its own directory (owned by `user`), for `--continue` to find. */
async function firstSession(user: TestUser, dir: string): Promise<string> {
  mkdirSync(dir);
  const model = scriptedModel([reply.text('ready')]);
  const run = await runAgent('q-start', { model: 'claude-test', modelCall: model.call, tools: [], session: { home: project.home }, cwd: dir });
  if (user.owner !== undefined) execFileSync('chown', ['-R', user.owner, project.dir]);
  return run.sessionId;
}

/** Starts the plan's runs at their offsets (and its kill), and waits for every one to end. */
async function runPlan(user: TestUser, dir: string, plan: Plan, questions: string[]): Promise<{ results: CliRun[]; pids: number[] }> {
  const started = plan.runs.map(async ({ offsetMs, wait }, i) => {
    await sleep(offsetMs);
    // The tool writes (echo >> log.txt): allowed, as -p denies what Claude Code's -p would ask about.
    const args = ['--continue', '-p', questions[i] as string, '--output-format', 'json', RUN_EVERYTHING, ...(wait ? ['--wait-for-session'] : [])];
    return startCli(args, { cwd: dir, env: project.env, prefix: user.prefix });
  });
  const runs = await Promise.all(started);
  const victim = plan.kill && runs[plan.kill.which % runs.length];
  if (victim && plan.kill) void sleep(plan.kill.afterMs).then(() => victim.child.kill('SIGKILL'));
  const results = await Promise.all(runs.map((run) => run.done));
  return { results, pids: runs.map((run) => run.child.pid as number) };
}

const count = (list: readonly string[], item: string) => list.filter((x) => x === item).length;

/** Checks a plan's outcome: see the file's comment. */
function check(id: string, dir: string, plan: Plan, questions: string[], outcome: { results: CliRun[]; pids: number[] }): void {
  const transcript = readTranscript(join(project.home, 'sessions', `${id}.jsonl`));
  const restored = restoreConversation(transcript.records);
  expect(transcript.problems).toEqual([]);
  expect(restored.problems).toEqual([]);
  const asked = restored.messages.filter((m) => m.role === 'user').flatMap((m) => questionsIn(m));
  const logPath = join(dir, 'log.txt');
  const log = existsSync(logPath) ? readFileSync(logPath, 'utf8').split('\n').filter(Boolean) : [];
  const killed = plan.kill ? plan.kill.which % plan.runs.length : -1;
  const completed: string[] = [];
  outcome.results.forEach((result, i) => {
    const question = questions[i] as string;
    const why = `run ${i} (${JSON.stringify(plan.runs[i])}): ${result.stderr}`;
    if (i === killed && result.signal === 'SIGKILL') {
      expect(count(asked, question), why).toBeLessThanOrEqual(1);
      expect(count(log, question), why).toBeLessThanOrEqual(1);
      return;
    }
    if (result.code === 2 && !plan.runs[i]?.wait) {
      expect(result.stderr, why).toMatch(REFUSED);
      expect(outcome.pids, why).toContain(Number(REFUSED.exec(result.stderr)?.[1]));
      expect(result.stdout, why).toBe('');
      expect(JSON.stringify(transcript.records), why).not.toContain(question);
      expect(log, why).not.toContain(question);
      return;
    }
    expect(result.code, why).toBe(0);
    expect(JSON.parse(result.stdout), why).toMatchObject({ session_id: id, is_error: false });
    expect(count(asked, question), why).toBe(1);
    expect(count(log, question), why).toBe(1);
    completed.push(question);
  });
  // The turns are in the history in the order their tools ran: one writer at a time.
  expect(asked.filter((q) => completed.includes(q))).toEqual(log.filter((q) => completed.includes(q)));
  expect(project.server.violations).toEqual([]);
  for (const request of project.server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
}

describe.each(testUsers())('as $name', (user) => {
  it('3-4 --continue -p at random offsets, waiting or not, one killed at random: no turn lost, answered or run twice', async (ctx) => {
    if (user.skip !== undefined) ctx.skip(user.skip);
    let round = 0;
    await fc.assert(
      fc.asyncProperty(plans, async (plan) => {
        round += 1;
        const dir = join(project.dir, `round${round}`);
        const id = await firstSession(user, dir);
        const questions = plan.runs.map((_, i) => `q-r${round}n${i}`);
        project.server.requests.length = 0;
        if (project.server.pending < 20) project.server.enqueue(...Array.from({ length: 40 }, () => answer));
        const outcome = await runPlan(user, dir, plan, questions);
        check(id, dir, plan, questions, outcome);
      }),
      {
        numRuns: 4,
        examples: [
          [{ runs: [{ offsetMs: 0, wait: true }, { offsetMs: 0, wait: true }, { offsetMs: 0, wait: false }] }],
          [{ runs: [{ offsetMs: 0, wait: true }, { offsetMs: 300, wait: true }, { offsetMs: 600, wait: true }], kill: { which: 0, afterMs: 800 } }],
        ],
      },
    );
  }, 900_000);
});
