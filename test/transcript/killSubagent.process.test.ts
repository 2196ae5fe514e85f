/**
 * kill -9 inside a subagent, then --continue: the CLI as a real process against the local Messages API, killed while
 * the child's second tool runs. The transcript holds the child's run up to there (its finished tool's start and
 * result, the cut one's start); the resumed session answers the parent's Agent call as interrupted (never runs the
 * child's tools again: the finished one ran once), and every request is valid.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { INTERRUPTED_TOOL_RESULT } from '../../src/transcript/resume.js';
import { lastToolResults } from '../support/agentServer.js';
import { RUN_EVERYTHING, runCli, startCli } from '../support/cli.js';
import type { MessagesServer, RequestBody } from '../support/messagesServer.js';
import { markedCliProjectPerTest, transcripts, waitFor } from '../support/sessions.js';

let server: MessagesServer;
let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;
let marker: string;

markedCliProjectPerTest('killsub', (project, m) => {
  ({ server, dir, home, env } = project);
  marker = m;
});

const records = (text: string) => text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { type: string; record?: { type: string }; [k: string]: unknown });
const bash = (id: string, command: string) => ({ content: [{ type: 'tool_use' as const, id, name: 'bash', input: { command } }], stop_reason: 'tool_use' as const });

describe('kill -9 inside a subagent, then --continue', () => {
  it("keeps the child's run in the transcript and answers the Agent call as interrupted; the child's finished tool never runs again", async () => {
    server.enqueue(
      { content: [{ type: 'tool_use', id: 'toolu_A1', name: 'Agent', input: { description: 'Work', prompt: 'Do the work', subagent_type: 'worker' } }], stop_reason: 'tool_use' },
      bash('toolu_C1', 'echo ran >> once.log'),
      bash('toolu_C2', `sleep 30 # ${marker}`),
    );
    const agents = JSON.stringify({ worker: { description: 'Works', prompt: 'You work.', tools: ['Bash'] } });
    const run = startCli(['-p', 'work', RUN_EVERYTHING, '--agents', agents], { cwd: dir, env });
    const name = await waitFor('the child\'s second tool_start', () => {
      for (const [file, text] of transcripts(home)) if (text.includes('toolu_C2') && text.includes('"type":"tool_start"')) return file;
      return undefined;
    });
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');

    const cut = records(transcripts(home).get(name) as string);
    const child = cut.filter((r) => r.type === 'agent').map((r) => r.record?.type);
    expect(cut.map((r) => r.type)).toContain('agent_start');
    expect(child.filter((t) => t === 'tool_start')).toHaveLength(2);
    expect(child.filter((t) => t === 'tool_result')).toHaveLength(1);
    expect(cut.map((r) => r.type)).not.toContain('agent_end');

    let resumed: RequestBody | undefined;
    server.enqueue((body) => {
      resumed = body;
      return { content: [{ type: 'text', text: 'The work was cut; done.' }], stop_reason: 'end_turn' };
    });
    const again = await runCli(['--continue', '--output-format', 'json', '--agents', agents], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ result: 'The work was cut; done.' });
    expect(lastToolResults(resumed!)).toEqual([expect.objectContaining({ tool_use_id: 'toolu_A1', is_error: true, content: INTERRUPTED_TOOL_RESULT })]);
    for (const request of server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
    expect(readFileSync(join(dir, 'once.log'), 'utf8')).toBe('ran\n');
  });
});
