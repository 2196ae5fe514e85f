/**
 * A session while a run writes it, with the CLI as real processes: every way in is refused before
 * it writes (or waits when asked), `sessions` shows the session running, and a lock left by a run
 * killed with SIGKILL blocks nothing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { INTERRUPTED_TOOL_RESULT, restoreConversation } from '../../src/transcript/resume.js';
import { readTranscript } from '../../src/transcript/store.js';
import { bashUse, lastToolResults, resultText } from '../support/agentServer.js';
import { RUN_EVERYTHING, runCli, startCli } from '../support/cli.js';
import type { CliProject } from '../support/project.js';
import { markedCliProjectPerTest, transcripts, waitFor } from '../support/sessions.js';

let project: CliProject;
let marker: string;
markedCliProjectPerTest('busy', (p, m) => {
  project = p;
  marker = m;
});

const refusal = (pid: number, hint: string) =>
  new RegExp(`^agentloop: session \\S+ is in use by process ${pid} \\(running for \\d+ s: agentloop [^\\n]*\\): ${hint}\\n$`);
const WAIT_HINT = 'add --wait-for-session to wait until it ends';

/** The model's answer once a tool's result is in: the result's text. */
const afterTool = (body: Parameters<typeof lastToolResults>[0]) => ({
  content: [{ type: 'text' as const, text: `done: ${resultText(lastToolResults(body)[0] as never)}` }],
  stop_reason: 'end_turn' as const,
});

/** Starts `-p` with a tool that runs until the file `go` exists; resolves once the tool has started. */
async function runningSession() {
  const tool = `touch started; while [ ! -e go ]; do sleep 0.05; done; echo finished | tee -a out.txt # ${marker}`;
  project.server.enqueue({ content: [{ type: 'text', text: 'Working.' }, bashUse('toolu_long', tool)], stop_reason: 'tool_use' });
  const run = startCli(['-p', 'q-first', '--output-format', 'json', RUN_EVERYTHING], { cwd: project.dir, env: project.env }); // its command writes
  await waitFor('the tool to start', () => existsSync(join(project.dir, 'started')), 60_000);
  const [name] = [...transcripts(project.home).keys()];
  return { run, id: (name as string).replace(/\.jsonl$/, ''), path: join(project.home, 'sessions', name as string) };
}

const cli = (...args: string[]) => runCli(args, { cwd: project.dir, env: project.env });

describe('--resume ID while ID is running', () => {
  it('is refused before it writes, naming the running process; with --wait-for-session it goes on after it, the tool never "interrupted"', async () => {
    const { run, id, path } = await runningSession();
    project.server.enqueue(afterTool);
    const pid = run.child.pid as number;
    const before = readFileSync(path, 'utf8');

    const refused = await cli('--resume', id.slice(0, 8), '-p', 'q-second', '--output-format', 'json');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(refusal(pid, WAIT_HINT));
    expect(refused.stdout).toBe('');
    expect(readFileSync(path, 'utf8')).toBe(before);

    project.server.enqueue((body) => ({ content: [{ type: 'text', text: `second saw ${body.messages.length}` }], stop_reason: 'end_turn' }));
    const waiting = startCli(['--resume', id, '-p', 'q-second', '--output-format', 'json', '--wait-for-session'], { cwd: project.dir, env: project.env });
    await waitFor('the waiting line', () => /waiting until it ends/.test(waiting.output().stderr), 60_000);
    expect(waiting.output().stderr).toContain(`is in use by process ${pid} (running for `);
    expect(readFileSync(path, 'utf8')).toBe(before);
    writeFileSync(join(project.dir, 'go'), '');

    const [first, second] = await Promise.all([run.done, waiting.done]);
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ session_id: id, result: 'done: finished' });
    expect(JSON.parse(second.stdout)).toMatchObject({ session_id: id, result: 'second saw 5' });
    expect(readFileSync(join(project.dir, 'out.txt'), 'utf8')).toBe('finished\n');

    const transcript = readTranscript(path);
    expect(JSON.stringify(transcript.records)).not.toContain(INTERRUPTED_TOOL_RESULT);
    const restored = restoreConversation(transcript.records);
    expect(restored.problems).toEqual([]);
    expect(restored.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    const results = project.server.requests.at(-1)?.body?.messages[2]?.content as never[];
    expect(results.map((block) => resultText(block))).toEqual(['finished']);
    for (const request of project.server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
    expect(project.server.violations).toEqual([]);
  }, 180_000);
});

describe('every way into a running session', () => {
  it('is refused with one line naming the process, exit 2, the transcript untouched; sessions shows it running', async () => {
    const { run, id, path } = await runningSession();
    const pid = run.child.pid as number;
    const before = readFileSync(path, 'utf8');

    const listed = await cli('sessions', '--output-format', 'json');
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id, exitReason: 'running', running: { pid, command: expect.stringMatching(/^agentloop -p q-first/) } }]);
    expect((await cli('sessions')).stdout).toMatch(new RegExp(`${id.slice(0, 8)} .* running `));

    const ways: Array<[string, string[], string]> = [
      ['--continue', ['--continue', '-p', 'q-x'], WAIT_HINT],
      ['--continue --fork-session', ['--continue', '--fork-session', '-p', 'q-x'], WAIT_HINT],
      ['--session-id', ['--session-id', id, '-p', 'q-x'], '--session-id needs an id not in use'],
      ['stream-json input', ['--resume', id, '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'], WAIT_HINT],
      ['the REPL', ['--resume', id], WAIT_HINT],
    ];
    for (const [way, args, hint] of ways) {
      const input = way === 'stream-json input' ? `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'q-x' } })}\n` : '';
      const refused = await runCli(args, { cwd: project.dir, env: project.env, input });
      expect(refused.code, `${way}: ${refused.stderr}`).toBe(2);
      expect(refused.stderr, way).toMatch(refusal(pid, hint));
    }
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect([...transcripts(project.home).keys()]).toEqual([`${id}.jsonl`]);
    expect(project.server.requests).toHaveLength(1);

    project.server.enqueue(afterTool);
    writeFileSync(join(project.dir, 'go'), '');
    expect((await run.done).code).toBe(0);
    expect(JSON.parse((await cli('sessions', '--output-format', 'json')).stdout)).toMatchObject([{ id, exitReason: 'completed', running: null }]);
  }, 180_000);
});

describe('a run killed with SIGKILL', () => {
  it('leaves its lock file behind, which blocks nothing: sessions shows the session interrupted, --continue goes on at once', async () => {
    const { run, id, path } = await runningSession();
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    expect(existsSync(path.replace(/\.jsonl$/, '.lock'))).toBe(true);
    expect(JSON.parse((await cli('sessions', '--output-format', 'json')).stdout)).toMatchObject([{ id, exitReason: 'interrupted', running: null }]);

    project.server.enqueue((body) => ({ content: [{ type: 'text', text: `after the kill: ${body.messages.length}` }], stop_reason: 'end_turn' }));
    const next = await cli('--continue', '-p', 'q-after', '--output-format', 'json');
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('as interrupted (not run again)');
    expect(JSON.parse(next.stdout)).toMatchObject({ session_id: id, result: 'after the kill: 3' });
    expect(existsSync(path.replace(/\.jsonl$/, '.lock'))).toBe(false);
    expect(restoreConversation(readTranscript(path).records).problems).toEqual([]);
    expect(project.server.violations).toEqual([]);
  }, 180_000);
});
