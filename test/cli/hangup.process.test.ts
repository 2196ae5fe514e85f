/**
 * SIGHUP (the terminal closed) ends a run like SIGTERM (issue 11, item 3): exit 128 + the signal,
 * the tools killed, the transcript closed with its `result` record; the session resumes.
 * The CLI as a real process against the local Messages API server, one-shot and REPL.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { bashUse, lastToolResults } from '../support/agentServer.js';
import { RUN_EVERYTHING, runCli, startCli } from '../support/cli.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { processes } from '../support/processes.js';
import { markedCliProjectPerTest, transcripts, waitFor } from '../support/sessions.js';

let server: MessagesServer;
let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;
let marker: string;

markedCliProjectPerTest('hup', (project, m) => {
  ({ server, dir, home, env } = project);
  marker = m;
});

const records = () =>
  ([...transcripts(home).values()][0] ?? '')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
const toolsAlive = () => processes().filter((p) => p.cmdline.includes(marker) && p.state !== 'Z');

/** The model asks for a long command; resolves once it runs. */
function enqueueLongTool(): void {
  server.enqueue({ content: [bashUse('toolu_wait', `touch started; sleep 30 # ${marker}`)], stop_reason: 'tool_use' });
}

describe('a signal that ends the CLI', () => {
  it('SIGHUP ends a one-shot run like SIGTERM: exit 129, the tool killed, the transcript closed, resumable', async () => {
    enqueueLongTool();
    const run = startCli(['-p', 'wait for it', '--output-format', 'json', RUN_EVERYTHING], { cwd: dir, env }); // its touch must run
    await waitFor('the tool to start', () => existsSync(join(dir, 'started')));
    run.child.kill('SIGHUP');
    const ended = await run.done;
    expect(ended.signal, ended.stderr).toBeNull();
    expect(ended.code, ended.stderr).toBe(129);
    expect(JSON.parse(ended.stdout)).toMatchObject({ exit_reason: 'aborted' });
    await waitFor('no tool process left', () => toolsAlive().length === 0, 5_000);
    const all = records();
    expect(all.at(-1)).toMatchObject({ type: 'result', exitReason: 'aborted' });
    // The history was closed with an answer for the cut tool_use.
    expect(JSON.stringify(all.filter((r) => r.type === 'message').at(-1))).toContain('"tool_use_id":"toolu_wait"');

    server.enqueue((body) => ({ content: [{ type: 'text', text: `results: ${lastToolResults(body).length}` }], stop_reason: 'end_turn' }));
    const resumed = await runCli(['--continue', '-p', 'go on', '--output-format', 'json', RUN_EVERYTHING], { cwd: dir, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const request of server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
    expect(server.violations).toEqual([]);
  });

  for (const [signal, code] of [
    ['SIGHUP', 129],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} ends the REPL during a run: exit ${code}, the tool killed, the transcript closed`, async () => {
      enqueueLongTool();
      const repl = startCli([RUN_EVERYTHING], { cwd: dir, env }); // its touch must run (the REPL asks about it by default)
      repl.child.stdin?.write('wait for it\n');
      await waitFor('the tool to start', () => existsSync(join(dir, 'started')));
      repl.child.kill(signal);
      const ended = await repl.done;
      expect(ended.signal, ended.stderr).toBeNull();
      expect(ended.code, ended.stderr).toBe(code);
      await waitFor('no tool process left', () => toolsAlive().length === 0, 5_000);
      expect(records().at(-1)).toMatchObject({ type: 'result', exitReason: 'aborted' });
      expect(server.requests).toHaveLength(1); // no question after the signal
    });
  }
});
