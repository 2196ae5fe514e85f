/**
 * Issue 42's "done when", the CLI as a real process against the local Messages API server that refuses any request
 * over a small window with the API's own 400 "prompt is too long": a -p run whose tools print more than the window
 * holds finishes its task; every history sent is valid (the server checks each); `--continue` goes on from the
 * boundary in the same session.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_EVERYTHING, runCli, startCli } from '../support/cli.js';
import type { MessagesServer, RequestBody, Step } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';
import { DONE, isSummaryBody, printingTask, serverTokens, SUMMARY } from '../support/compaction.js';

const WINDOW = 12_000;
let project: CliProject;
let server: MessagesServer;

cliProjectPerTest('compact', (p) => { project = p; server = p.server; }, { noViolations: true, server: { contextWindow: WINDOW } });

const run = (...args: string[]) => runCli(args, { cwd: project.dir, env: project.env });
const records = (id: string) =>
  readFileSync(join(project.home, 'sessions', `${id}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const accepted = () => server.requests.filter((_, i) => !server.refusedTooLong.includes(i));

describe('a -p run whose tools print more than the window holds', () => {
  it('compacts after the API refuses a request as too long, sends the turn again, and finishes its task', async () => {
    const task = printingTask(server, { chunks: 6, chars: 16_000 });
    const cli = await run('-p', 'print the six chunks', '--output-format', 'json', RUN_EVERYTHING);
    expect(cli.code, cli.stderr).toBe(0);
    const result = JSON.parse(cli.stdout) as { result: string; session_id: string; modelUsage: Record<string, { inputTokens: number }> };
    expect(result.result).toBe(DONE);
    // The summary calls count in the usage per model, as every accepted call does.
    expect(result.modelUsage['claude-test']?.inputTokens).toBe(accepted().reduce((n, r) => n + serverTokens(r.body), 0));
    // The model (a Claude id) is assumed to have 200,000 tokens: the first refusal compacts, and names the real window,
    // which the loop keeps to from then on (it compacts before a request would pass it: no second refusal).
    expect(server.refusedTooLong).toHaveLength(1);
    const refused = server.refusedTooLong[0] as number;
    expect(isSummaryBody(server.requests[refused + 1]?.body), 'a summary request follows the refusal').toBe(true);
    const again = server.requests[refused + 2]?.body;
    expect(again?.messages[0]?.content, 'the same turn, sent again from the boundary').toEqual([expect.objectContaining({ text: expect.stringContaining(SUMMARY) })]);
    for (const request of accepted()) expect(serverTokens(request.body)).toBeLessThanOrEqual(WINDOW);
    const boundaries = records(result.session_id).filter((r) => r.type === 'compact_boundary');
    expect(boundaries[0]).toMatchObject({ trigger: 'prompt_too_long', kind: 'summary', summary: SUMMARY });
    expect(boundaries.slice(1).every((b) => b.trigger === 'threshold')).toBe(true);

    // --continue goes on from the last boundary, in the same session.
    task.followUp('Six chunks.');
    const next = await run('-p', 'how many chunks were there?', '--continue', '--output-format', 'json', RUN_EVERYTHING);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ result: 'Six chunks.', session_id: result.session_id });
    const sent = server.requests.at(-1)?.body;
    expect(JSON.stringify(sent?.messages[0])).toContain(SUMMARY);
    expect(serverTokens(sent)).toBeLessThanOrEqual(WINDOW);
  });

  it('killed (-9) after its compaction, --continue goes on from the boundary: no second summary', async () => {
    let summaries = 0;
    let printed = 0;
    let afterBoundary = 0;
    let hung: () => void = () => {};
    const hanging = new Promise<void>((resolve) => (hung = resolve));
    const step = (body: RequestBody): Step | Promise<Step> => {
      if (isSummaryBody(body)) {
        summaries++;
        return { content: [{ type: 'text', text: `<summary>${SUMMARY}</summary>` }], stop_reason: 'end_turn' };
      }
      if (summaries > 0 && afterBoundary++ === 0) {
        hung();
        return new Promise<Step>(() => {}); // the turn sent again from the boundary, under way when the agent is killed
      }
      if (summaries > 0) return { content: [{ type: 'text', text: 'Six chunks.' }], stop_reason: 'end_turn' };
      printed++;
      const command = `head -c 16000 /dev/zero | tr '\\0' x; echo " chunk ${printed}"`;
      return { content: [{ type: 'tool_use', id: `toolu_chunk${printed}`, name: 'bash', input: { command } }], stop_reason: 'tool_use' };
    };
    for (let i = 0; i < 30; i++) server.enqueue(step);
    const cli = startCli(['-p', 'print the chunks', '--output-format', 'json', RUN_EVERYTHING], { cwd: project.dir, env: project.env });
    await hanging;
    cli.child.kill('SIGKILL');
    await cli.done;
    expect(summaries).toBe(1);
    const before = server.requests.length;

    const next = await run('-p', 'how many chunks were there?', '--continue', '--output-format', 'json', RUN_EVERYTHING);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ result: 'Six chunks.' });
    const sent = server.requests.slice(before).map((r) => r.body);
    expect(sent.filter(isSummaryBody), 'no second summary').toEqual([]);
    expect(summaries).toBe(1);
    expect(JSON.stringify(sent[0]?.messages[0]), 'the first request after the kill starts from the boundary').toContain(SUMMARY);
    for (const body of sent) expect(serverTokens(body)).toBeLessThanOrEqual(WINDOW);
  });

  it('with the window known (--context-window), compacts before the request would pass it: none is refused', async () => {
    printingTask(server, { chunks: 6, chars: 16_000 });
    const cli = await run('-p', 'print the six chunks', '--context-window', String(WINDOW), '--output-format', 'json', RUN_EVERYTHING);
    expect(cli.code, cli.stderr).toBe(0);
    const result = JSON.parse(cli.stdout) as { result: string; session_id: string };
    expect(result.result).toBe(DONE);
    expect(server.refusedTooLong).toEqual([]);
    const boundaries = records(result.session_id).filter((r) => r.type === 'compact_boundary');
    expect(boundaries.length).toBeGreaterThan(0);
    expect(boundaries.every((b) => b.trigger === 'threshold')).toBe(true);
  });

  it('refuses a bad AGENTLOOP_CONTEXT_WINDOW or --context-window in one line, exit 2, before anything runs', async () => {
    const bad = await runCli(['-p', 'hi'], { cwd: project.dir, env: { ...project.env, AGENTLOOP_CONTEXT_WINDOW: 'abc' } });
    expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([2, 'agentloop: AGENTLOOP_CONTEXT_WINDOW takes a whole number of at least 1000, not "abc"']);
    expect(bad.stderr).not.toContain('    at ');
    const flag = await run('-p', 'hi', '--context-window', '5');
    expect([flag.code, flag.stderr.split('\n')[0]]).toEqual([2, 'agentloop: --context-window takes a whole number of at least 1000, not "5"']);
    expect(server.requests).toHaveLength(0);
  });
});
