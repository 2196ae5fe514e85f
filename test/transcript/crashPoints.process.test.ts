/**
 * Crash safety (issue 11, item 6): the CLI runs a scripted three-turn task against the local
 * Messages API server and is killed with SIGKILL at many points, each chosen deterministically:
 * - after every transcript record (and with each message record, and the first record of every
 *   other type, torn in half): the writer stops the process dead there
 *   (AGENTLOOP_TEST_PAUSE_AT_RECORD, crashPoint.ts) and the test kills it;
 * - seen from outside: while the server holds each request unanswered, while a reply streams
 *   (a read-only tool started from it, blocked on a FIFO, and a text reply stalled half-way),
 *   and while a tool runs (it wrote its line and waits for a file).
 * After each kill, `--continue` must complete; every request the server got must be a valid
 * history; no tool may have run twice (each appends its name to log.txt); and nothing the model
 * or a tool produced before the kill may be missing from the history the run ends with.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/core/messages.js';
import { historyProblems } from '../../src/history/validate.js';
import { recordedMessages, restoreConversation } from '../../src/transcript/resume.js';
import { parseTranscript } from '../../src/transcript/store.js';
import { bashUse, startCheckedServer } from '../support/agentServer.js';
import { RUN_EVERYTHING, cliEnv, runCli, startCli } from '../support/cli.js';
import type { MessagesServer, RequestBody, Step } from '../support/messagesServer.js';
import { killGroupsMarked, transcripts, waitFor } from '../support/sessions.js';

const PROMPT = 'do the three steps';

/** Where and how the first run is cut. */
type KillPoint =
  | { kind: 'record'; record: number; torn: boolean }
  | { kind: 'request'; request: number }
  | { kind: 'stream-tool' }
  | { kind: 'stream-text' }
  | { kind: 'tool' };

const describePoint = (p: KillPoint) =>
  p.kind === 'record' ? `after record ${p.record}${p.torn ? ' (torn)' : ''}` : p.kind === 'request' ? `during request ${p.request}` : p.kind;

const answered = (body: RequestBody, name: string) =>
  body.messages.some((m) => typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result' && b.tool_use_id.startsWith(`toolu_${name}_`)));

/**
 * The model: what it answers follows from the history it is sent, so a resumed run gets the
 * reply it needs wherever the first one was cut. Tool ids carry the request's number: a step
 * asked again gets new ids.
 */
function model(marker: string, fault: (index: number, body: RequestBody) => Step | undefined): Step {
  return (body, index) => {
    const injected = fault(index, body);
    if (injected) return injected;
    if (answered(body, 'C')) return { content: [{ type: 'text', text: 'All done.' }], stop_reason: 'end_turn' };
    if (answered(body, 'A')) return stepTwo(marker, index);
    return {
      content: [{ type: 'text', text: 'Step one.' }, bashUse(`toolu_A_${index}`, `echo A >> log.txt # ${marker}`)],
      stop_reason: 'tool_use',
    };
  };
}

/** A read-only tool (it starts while the reply streams) and one that waits for `release`. */
function stepTwo(marker: string, index: number) {
  return {
    content: [
      bashUse(`toolu_B_${index}`, `cat notes.txt # ${marker}`),
      { type: 'text' as const, text: 'Two more.' },
      bashUse(`toolu_C_${index}`, `echo C >> log.txt; while [ ! -e release ]; do sleep 0.02; done # ${marker}`),
    ],
    stop_reason: 'tool_use' as const,
    delayMs: 5,
  };
}

interface Outcome {
  point: string;
  records: number;
  continued: boolean;
}

/** One kill point: the first run, the kill, the checks, `--continue`, the checks. */
async function killAndContinue(point: KillPoint): Promise<Outcome> {
  const marker = `m${randomUUID().slice(0, 8)}`;
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-crash-'));
  const home = join(dir, '.home');
  let server: MessagesServer | undefined;
  const where = describePoint(point);
  try {
    writeFileSync(join(dir, 'log.txt'), '');
    if (point.kind === 'stream-tool') execFileSync('mkfifo', [join(dir, 'notes.txt')]);
    else writeFileSync(join(dir, 'notes.txt'), 'the notes\n');
    if (point.kind !== 'tool') writeFileSync(join(dir, 'release'), '');
    let first = true;
    server = await startCheckedServer();
    const steps = server;
    const fault = (index: number, body: RequestBody): Step | undefined => {
      if (!first) return undefined;
      if (point.kind === 'request' && index === point.request - 1) return { fault: 'no-response' };
      if (point.kind === 'stream-text' && answered(body, 'C')) return { fault: 'stall', content: [{ type: 'text', text: 'All do' }] };
      // The reply stops after its read-only tool_use: that tool starts, blocked on a FIFO.
      if (point.kind === 'stream-tool' && answered(body, 'A')) return { fault: 'stall', content: stepTwo(marker, index).content, afterBlocks: 1 };
      return undefined;
    };
    for (let i = 0; i < 12; i++) steps.enqueue(model(marker, fault));
    const env = cliEnv({ ANTHROPIC_API_KEY: `sk-ant-test-${randomUUID()}`, ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: home });
    const pause = point.kind === 'record' ? { AGENTLOOP_TEST_PAUSE_AT_RECORD: `${point.record}${point.torn ? '-torn' : ''}` } : {};
    const run = startCli(['-p', PROMPT, '--output-format', 'json', RUN_EVERYTHING], { cwd: dir, env: { ...env, ...pause } });
    const text = () => [...transcripts(home).values()][0] ?? '';
    const done = { finished: false };
    void run.done.then(() => (done.finished = true));
    const reached = await waitFor(`${where} to be reached`, () => {
      if (done.finished) return 'finished';
      switch (point.kind) {
        case 'record':
          return run.output().stderr.includes(`paused at record ${point.record}`) && 'paused';
        case 'request':
          return server!.requests.length === point.request && 'held';
        case 'stream-tool':
          return /"type":"tool_start"[^\n]*toolu_B_/.test(text()) && 'tool started';
        case 'stream-text':
          return server!.requests.length === 3 && 'stalled';
        case 'tool':
          return readFileSync(join(dir, 'log.txt'), 'utf8').includes('C') && 'tool running';
      }
    }, 30_000);
    // A record past the end of the run: the run finished first; that is the last point.
    if (reached === 'finished') return { point: where, records: -1, continued: false };
    run.child.kill('SIGKILL');
    expect((await run.done).signal, where).toBe('SIGKILL');
    killGroupsMarked(marker);

    // What the killed run left: everything in it must survive the resume.
    const cut = parseTranscript(text());
    const kept = recordedMessages(cut.records).messages;
    const results = cut.records.flatMap((r) => (r.type === 'tool_result' ? [r.result] : []));
    const before = restoreConversation(cut.records);
    expect(before.problems, where).toEqual([]);
    // The points seen from outside cut where they meant to.
    if (point.kind === 'stream-tool') expect(before.repaired.join(' ')).toContain('the reply being streamed was cut off after 1 tool had started');
    if (point.kind === 'tool') expect(before.repaired.join(' ')).toMatch(/answered bash toolu_C_\d+ as interrupted/);
    if (point.kind === 'request' || point.kind === 'stream-text') expect(before).toMatchObject({ awaitsModel: true, repaired: [] });

    first = false;
    if (point.kind === 'stream-tool') {
      rmSync(join(dir, 'notes.txt'));
      writeFileSync(join(dir, 'notes.txt'), 'the notes\n');
    }
    writeFileSync(join(dir, 'release'), '');
    const complete = !before.awaitsModel && before.messages.length > 0;
    // Only a torn first write (the prompt half on disk: a power cut, not a kill) leaves no question.
    const asked = before.messages.length > 0;
    if (!asked) expect(where).toBe('after record 2 (torn)');
    const resumed = await runCli(['--continue', ...(asked ? [] : ['-p', PROMPT]), '--output-format', 'json', RUN_EVERYTHING], { cwd: dir, env });
    if (complete) {
      // The kill came after the final answer was recorded: nothing is left to do.
      expect(resumed.code, `${where}: ${resumed.stderr}`).toBe(2);
      expect(resumed.stderr).toMatch(/ended with the model's answer/);
    } else {
      expect(resumed.code, `${where}: ${resumed.stderr}`).toBe(0);
      expect(JSON.parse(resumed.stdout), where).toMatchObject({ exit_reason: 'completed', result: 'All done.' });
    }

    // Every request was a valid history (the server refuses and records any other).
    expect(server.violations, where).toEqual([]);
    for (const r of server.requests) if (r.body) expect(historyProblems(r.body.messages), where).toEqual([]);
    // No tool ran twice.
    const log = readFileSync(join(dir, 'log.txt'), 'utf8').split('\n').filter(Boolean);
    expect(new Set(log).size, `${where}: ${log.join(',')}`).toBe(log.length);
    // The history the run ended with keeps all that was recorded before the kill, the prompt
    // and every tool result included.
    const end = restoreConversation(parseTranscript(text()).records).messages;
    expect(end.slice(0, kept.length), where).toEqual(kept);
    expect(JSON.stringify(end[0]), where).toContain(PROMPT);
    const sent = (m: MessageParam) => (typeof m.content === 'string' ? [] : m.content);
    for (const result of results) expect(end.flatMap(sent), where).toContainEqual(result);
    expect(end.at(-1), where).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'All done.' }] });
    return { point: where, records: cut.records.length, continued: !complete };
  } finally {
    killGroupsMarked(marker);
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `jobs` two at a time (CI has 2 cores); stops at the first failure. */
async function inPairs<T>(jobs: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) out.push(await (jobs[next++] as () => Promise<T>)());
  };
  await Promise.all([worker(), worker()]);
  return out;
}

describe('kill -9 anywhere in a three-turn run, then --continue', () => {
  it('completes with valid requests, no tool run twice and nothing lost, at every record and 6 points seen from outside', async () => {
    // The records of an uninterrupted run: one kill point after each, torn ones for the message records and one of every other type.
    const outside: KillPoint[] = [
      { kind: 'request', request: 1 },
      { kind: 'request', request: 2 },
      { kind: 'request', request: 3 },
      { kind: 'stream-tool' },
      { kind: 'stream-text' },
      { kind: 'tool' },
    ];
    const types = await recordTypesOfARun();
    const seen = new Set<string>();
    const records: KillPoint[] = types.flatMap((type, i) => {
      const tear = type === 'message' || !seen.has(type);
      seen.add(type);
      return [{ kind: 'record' as const, record: i + 1, torn: false }, ...(tear && i > 0 ? [{ kind: 'record' as const, record: i + 1, torn: true }] : [])];
    });
    const started = Date.now();
    const outcomes = await inPairs([...outside, ...records].map((p) => () => killAndContinue(p)));
    const killed = outcomes.filter((o) => o.records >= 0);
    console.log(
      `crash safety: ${killed.length} kill points (${records.length} at records of a ${types.length}-record run, ${outside.length} seen from outside), ` +
        `${killed.filter((o) => o.continued).length} continued to the end, the rest had the answer already; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    expect(killed.length).toBe(outside.length + records.length);
    expect(types.length).toBeGreaterThan(20);
  }, 900_000);
});

/** The record types an uninterrupted run of the task writes, in order. */
async function recordTypesOfARun(): Promise<string[]> {
  const marker = `m${randomUUID().slice(0, 8)}`;
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-crash-'));
  const server = await startCheckedServer();
  try {
    writeFileSync(join(dir, 'notes.txt'), 'the notes\n');
    writeFileSync(join(dir, 'release'), '');
    for (let i = 0; i < 3; i++) server.enqueue(model(marker, () => undefined));
    const home = join(dir, '.home');
    const env = cliEnv({ ANTHROPIC_API_KEY: 'sk-ant-test-x', ANTHROPIC_BASE_URL: server.url, MODEL_ID: 'claude-test', AGENTLOOP_HOME: home });
    const run = await runCli(['-p', PROMPT, '--output-format', 'json', RUN_EVERYTHING], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(dir, 'log.txt'))).toBe(true);
    return parseTranscript([...transcripts(home).values()][0] ?? '').records.map((r) => r.type);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
