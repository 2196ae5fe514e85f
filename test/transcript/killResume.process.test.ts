/**
 * The durability contract, end to end: the CLI as a real process against the local Messages API
 * server, killed with SIGKILL while its bash tool runs, then `--continue`d to a valid finish.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { INTERRUPTED_TOOL_RESULT } from '../../src/transcript/resume.js';
import { lastToolResults } from '../support/agentServer.js';
import { RUN_EVERYTHING, runCli, startCli } from '../support/cli.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { markedCliProjectPerTest, transcripts, waitFor } from '../support/sessions.js';

const API_KEY = `sk-ant-test-${randomUUID()}`;

let server: MessagesServer;
let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;
let marker: string;

markedCliProjectPerTest(
  'resume',
  (project, m) => {
    ({ server, dir, home, env } = project);
    marker = m;
  },
  { apiKey: API_KEY, files: { 'notes.txt': 'n' } },
);

const records = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });

describe('kill -9 in the middle of a tool, then --continue', () => {
  it('answers the cut tool_use as interrupted (never reruns it) and finishes with a valid history', async () => {
    // Not read-only, so it starts once the reply is complete (and runs only when allowed): the kill lands in executingTools.
    const sleep = `touch started && sleep 30 # ${marker}`;
    server.enqueue({
      content: [
        { type: 'text', text: 'Waiting first.' },
        { type: 'tool_use', id: 'toolu_sleep', name: 'bash', input: { command: sleep } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 120, output_tokens: 30, cache_creation_input_tokens: 100, cache_read_input_tokens: 0 },
    });

    const started = Date.now();
    const run = startCli(['-p', 'wait, then say done', RUN_EVERYTHING], { cwd: dir, env });
    const name = await waitFor('the transcript to show tool_start', () => {
      for (const [file, text] of transcripts(home)) if (text.includes('"type":"tool_start"')) return file;
      return undefined;
    });
    const toolStartedAfter = Date.now() - started;
    run.child.kill('SIGKILL');
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');

    const cut = records(transcripts(home).get(name) as string);
    expect(cut[0]).toMatchObject({ type: 'session', version: 1, cwd: dir, model: 'claude-test' });
    expect(cut.filter((r) => r.type === 'transition').at(-1)).toMatchObject({ state: 'executingTools' });
    expect(cut.map((r) => r.type)).toContain('tool_start');
    expect(cut.map((r) => r.type)).not.toContain('tool_result');
    expect(cut.map((r) => r.type)).not.toContain('result');
    const listed = await runCli(['sessions', '--output-format', 'json'], { cwd: dir, env });
    expect(JSON.parse(listed.stdout)).toMatchObject([{ exitReason: 'interrupted', firstPrompt: 'wait, then say done', turns: 1 }]);

    let resumedBody: (typeof server.requests)[number]['body'];
    server.enqueue((body) => {
      resumedBody = body;
      return { content: [{ type: 'text', text: 'The wait was interrupted; done.' }], stop_reason: 'end_turn' };
    });
    const resumedAt = Date.now();
    const resumed = await runCli(['--continue', '--output-format', 'json'], { cwd: dir, env });
    const resumeMs = Date.now() - resumedAt;
    expect(resumed.stderr).toContain('as interrupted (not run again)');
    expect(resumed.code, resumed.stderr).toBe(0);
    const result = JSON.parse(resumed.stdout);
    expect(result).toMatchObject({
      subtype: 'success',
      exit_reason: 'completed',
      num_turns: 1, // this run's model calls, as Claude Code counts them (not the session's)
      result: 'The wait was interrupted; done.',
      session_id: name.replace('.jsonl', ''),
    });

    // The model got the interrupted tool_use answered, and every request was valid.
    expect(server.requests).toHaveLength(2);
    for (const request of server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
    expect(server.violations).toEqual([]);
    expect(resumedBody!.messages).toHaveLength(3);
    expect(resumedBody!.messages[1]?.content).toEqual([
      { type: 'text', text: 'Waiting first.' },
      { type: 'tool_use', id: 'toolu_sleep', name: 'bash', input: { command: sleep } },
    ]);
    expect(lastToolResults(resumedBody!)).toEqual([
      expect.objectContaining({ tool_use_id: 'toolu_sleep', is_error: true, content: INTERRUPTED_TOOL_RESULT }),
    ]);

    // One transcript, extended: the resume, the repair, the new turn and the result.
    const after = transcripts(home);
    expect([...after.keys()]).toEqual([name]);
    const text = after.get(name) as string;
    const all = records(text);
    expect(all.filter((r) => r.type === 'session')).toHaveLength(1);
    expect(all.find((r) => r.type === 'resume')).toMatchObject({ turnCount: 2 });
    expect(all.find((r) => r.type === 'message' && r.synthetic)).toMatchObject({ index: 2 });
    expect(all.at(-1)).toMatchObject({ type: 'result', exitReason: 'completed', turnCount: 2 });
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain('x-api-key');

    const finalList = await runCli(['sessions'], { cwd: dir, env });
    expect(finalList.stdout).toMatch(/completed/);
    expect(finalList.stdout).toContain('wait, then say done');
    console.log(`kill -9 test: tool_start in the transcript after ${toolStartedAfter} ms; --continue took ${resumeMs} ms`);
  });

  it('killed while the reply still streams, after a read-only tool started: keeps that tool_use, answered as interrupted', async () => {
    const sleep = `sleep 30 # ${marker}`;
    server.enqueue({
      content: [
        { type: 'tool_use', id: 'toolu_early', name: 'bash', input: { command: sleep } },
        { type: 'text', text: 'This text is still streaming when the process dies, slowly.' },
      ],
      stop_reason: 'tool_use',
      delayMs: 200, // between SSE frames: the rest of the reply takes over a second
    });
    const run = startCli(['-p', 'sleep while you talk'], { cwd: dir, env });
    await waitFor('tool_start', () => [...transcripts(home).values()].some((t) => t.includes('"type":"tool_start"')));
    run.child.kill('SIGKILL');
    await run.done;
    const cut = records([...transcripts(home).values()][0] as string);
    expect(cut.filter((r) => r.type === 'message').map((r) => r.index)).toEqual([0]); // the reply never completed

    let resumedBody: (typeof server.requests)[number]['body'];
    server.enqueue((body) => {
      resumedBody = body;
      return { content: [{ type: 'text', text: 'OK.' }], stop_reason: 'end_turn' };
    });
    const resumed = await runCli(['--continue', '--output-format', 'json'], { cwd: dir, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('the reply being streamed was cut off after 1 tool had started');
    expect(JSON.parse(resumed.stdout)).toMatchObject({ exit_reason: 'completed', num_turns: 1 });
    expect(resumedBody!.messages.slice(1).map((m) => [m.role, m.content])).toEqual([
      ['assistant', [{ type: 'tool_use', id: 'toolu_early', name: 'bash', input: { command: sleep } }]],
      ['user', [expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_early', is_error: true, content: INTERRUPTED_TOOL_RESULT })]],
    ]);
    expect(server.violations).toEqual([]);
  });

  it('the REPL with --continue first finishes the cut turn, then takes the next question', async () => {
    server.enqueue({ content: [{ type: 'tool_use', id: 'toolu_s', name: 'bash', input: { command: `sleep 30 # ${marker}` } }], stop_reason: 'tool_use' });
    const run = startCli(['-p', 'wait'], { cwd: dir, env });
    await waitFor('tool_start', () => [...transcripts(home).values()].some((t) => t.includes('"type":"tool_start"')));
    run.child.kill('SIGKILL');
    await run.done;

    server.enqueue(
      { content: [{ type: 'text', text: 'Finished the interrupted turn.' }], stop_reason: 'end_turn' },
      (body) => ({ content: [{ type: 'text', text: `Second answer after ${body.messages.length} messages.` }], stop_reason: 'end_turn' }),
    );
    const repl = await runCli(['--continue'], { cwd: dir, env, input: 'what next?\n' });
    const sizes = server.requests.map((r) => r.body?.messages.length);
    expect(sizes, `${repl.stderr}\n${repl.stdout}`).toEqual([1, 3, 5]);
    expect(repl.code, repl.stderr).toBe(0);
    expect(repl.stderr).toContain('Finishing the interrupted turn');
    expect(repl.stdout).toBe('Finished the interrupted turn.\nagentloop >> Second answer after 5 messages.\nagentloop >> ');
    expect(server.violations).toEqual([]);
    for (const request of server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
    const all = records([...transcripts(home).values()][0] as string);
    expect(all.filter((r) => r.type === 'result').map((r) => r.exitReason)).toEqual(['completed', 'completed']);
    expect(all.filter((r) => r.type === 'prompt').map((r) => r.text)).toEqual(['wait', 'what next?']);
  });

  it('reports a torn last line, skips it, and still resumes', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'First answer.' }], stop_reason: 'end_turn' });
    const first = await runCli(['-p', 'hello', '--output-format', 'json'], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    const [name] = [...transcripts(home).keys()];
    const path = join(home, 'sessions', name as string);
    writeFileSync(path, `${transcripts(home).get(name as string)}{"type":"message","index":2,"mess`);
    const listed = await runCli(['sessions'], { cwd: dir, env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('hello');
    expect(listed.stderr).toMatch(/\.jsonl: line \d+ \(the last, unfinished\): not valid JSON/);

    server.enqueue((body) => ({
      content: [{ type: 'text', text: `I see ${body.messages.length} messages.` }],
      stop_reason: 'end_turn',
    }));
    const second = await runCli(['--resume', (name as string).slice(0, 8), '-p', 'and again?', '--output-format', 'json'], { cwd: dir, env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/line \d+ \(the last, unfinished\): not valid JSON/);
    expect(JSON.parse(second.stdout)).toMatchObject({ result: 'I see 3 messages.', num_turns: 1 });
    // The torn line stays where it was; the next record starts on a line of its own.
    const lines = (transcripts(home).get(name as string) as string).split('\n');
    expect(lines.filter((l) => l.endsWith('"mess'))).toHaveLength(1);
    expect(server.violations).toEqual([]);
  });

  it('starts a session for --continue with a prompt where this directory has none, as Claude Code', async () => {
    server.enqueue({ content: [{ type: 'text', text: 'Started.' }], stop_reason: 'end_turn' });
    const first = await runCli(['--continue', '-p', 'hi', '--output-format', 'json'], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ result: 'Started.', num_turns: 1 });
    expect(transcripts(home).size).toBe(1);
  });

  it('refuses --continue without a session in this directory and no prompt, and a finished session without a prompt', async () => {
    const none = await runCli(['--continue', '--output-format', 'json'], { cwd: dir, env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no session to continue in .*: give a prompt to start one/);
    expect(transcripts(home).size).toBe(0); // nothing written

    server.enqueue({ content: [{ type: 'text', text: 'Hi.' }], stop_reason: 'end_turn' });
    expect((await runCli(['-p', 'hi'], { cwd: dir, env })).code).toBe(0);
    const finished = await runCli(['--continue', '--output-format', 'json'], { cwd: dir, env });
    expect(finished.code).toBe(2);
    expect(finished.stderr).toMatch(/ended with the model's answer/);
  });
});
