/**
 * `-p "/compact [instructions]"` on a resumed session, as Claude Code 2.1.197's -p answers it (recorded by the lead
 * against the local Messages API, session j: `claude -p "/compact keep it" --resume ID` prints a blank line in text
 * and a `result` of no turn (`num_turns: 0`, `result: ""`) in json, exit 0; on a session with no conversation, a
 * blank line and exit 0): the history is compacted now (one summary request, no model turn), the boundary is in
 * the session, and the next question goes on from the summary.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { isSummaryBody } from '../support/compaction.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
cliProjectPerTest('compact-once', (p) => (project = p), { noViolations: true });

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const records = (id: string) =>
  readFileSync(join(project.home, 'sessions', `${id}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; trigger?: string });

async function aSession(): Promise<string> {
  project.server.enqueue(answer('1, 2, 3'));
  const first = await runCli(['-p', 'count to three', '--output-format', 'json'], { cwd: project.dir, env: project.env });
  expect(first.code, first.stderr).toBe(0);
  return (JSON.parse(first.stdout) as { session_id: string }).session_id;
}

describe('-p "/compact": the session compacted now, as Claude Code\'s -p', () => {
  it('json: a result of no turn; one summary request with the instructions; the next question goes on from the summary', async () => {
    const id = await aSession();
    project.server.enqueue(answer('<summary>We counted 1, 2, 3.</summary>'), answer('4'));
    const run = await runCli(['-p', '/compact keep the numbers', '--resume', id, '--output-format', 'json'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, num_turns: 0, result: '', session_id: id });
    expect(project.server.requests).toHaveLength(2);
    expect(isSummaryBody(project.server.requests[1]?.body)).toBe(true);
    expect(JSON.stringify(project.server.requests[1]?.body?.messages.at(-1))).toContain('Additional Instructions:\\nkeep the numbers');
    expect(records(id).filter((r) => r.type === 'compact_boundary')).toEqual([expect.objectContaining({ trigger: 'manual' })]);
    const next = await runCli(['-p', 'and then?', '--resume', id], { cwd: project.dir, env: project.env });
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.stringify(project.server.requests[2]?.body?.messages[0])).toContain('We counted 1, 2, 3.');
  });

  it('text: a blank line, as Claude Code prints', async () => {
    const id = await aSession();
    project.server.enqueue(answer('<summary>We counted.</summary>'));
    const run = await runCli(['-p', '/compact', '--resume', id], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('\n');
    expect(project.server.requests).toHaveLength(2);
  });

  it("stream-json: Claude Code's lines of /compact (status, boundary, summary, result)", async () => {
    const id = await aSession();
    project.server.enqueue(answer('<summary>We counted.</summary>'));
    const run = await runCli(['-p', '/compact', '--resume', id, '--output-format', 'stream-json', '--verbose'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; subtype?: string });
    expect(lines.map((l) => l.subtype ?? l.type)).toEqual(expect.arrayContaining(['status', 'compact_boundary', 'user', 'success']));
    expect(lines.at(-1)).toMatchObject({ type: 'result', num_turns: 0 });
  });

  it('a summary the model fails to give: exit 1, one line on stderr, the session as it was', async () => {
    const id = await aSession();
    project.server.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'no summary today' } });
    const run = await runCli(['-p', '/compact', '--resume', id], { cwd: project.dir, env: project.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^agentloop: \/compact failed: .+ \(the conversation is as it was\)$/m);
    expect(records(id).some((r) => r.type === 'compact_boundary')).toBe(false);
  });

  it('a session with no conversation: nothing to compact, no request, exit 0', async () => {
    const run = await runCli(['-p', '/compact'], { cwd: project.dir, env: project.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('\n');
    expect(run.stderr).toContain('nothing to compact');
    expect(project.server.requests).toHaveLength(0);
  });
});
