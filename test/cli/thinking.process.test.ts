/**
 * Extended thinking (issue 27: --max-thinking-tokens, --thinking, --thinking-display), the CLI as a process against
 * the local Messages API, which holds every request to the API's thinking rules (test/support/thinkingContract.ts:
 * thinking blocks only for a request with `thinking`, carried back first and unchanged in a tool loop, budget and
 * max_tokens) and refuses an invalid history: the runs must leave it no violation.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashUse } from '../support/agentServer.js';
import { runCli } from '../support/cli.js';
import type { MessagesServer, ScriptedBlock } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('thinking', (p) => { project = p; server = p.server; }, { noViolations: true });

const run = (...args: string[]) => runCli(args, { cwd: project.dir, env: project.env });
const thought: ScriptedBlock = { type: 'thinking', thinking: 'The user wants the files: ls.', signature: 'EqQBCkYIBxgCKkD+sig/1==' };
const redacted: ScriptedBlock = { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' };
const thought2: ScriptedBlock = { type: 'thinking', thinking: 'One file: a.txt.', signature: 'EqQBCkYIBxgCKkD+sig/2==' };
const toolTurn = { content: [thought, redacted, bashUse('t1', 'ls')], stop_reason: 'tool_use' as const };
const answerTurn = { content: [thought2, { type: 'text' as const, text: 'There is a.txt.' }], stop_reason: 'end_turn' as const };
const lines = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);

describe('--max-thinking-tokens N on a model that takes a budget', () => {
  it('asks for thinking with that budget, carries the blocks back in the tool loop, prints them on stream-json (and thinking_tokens)', async () => {
    server.enqueue(toolTurn, answerTurn);
    const cli = await run('-p', 'list the files', '--model', 'claude-sonnet-4-5', '--max-thinking-tokens', '2048', '--output-format', 'stream-json', '--verbose');
    expect(cli.code, cli.stderr).toBe(0);
    const [first, second] = server.requests.map((r) => r.body!);
    expect(first).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 2048 + 8000 });
    expect(second?.thinking).toEqual(first?.thinking);
    expect(second?.messages[1]).toEqual({ role: 'assistant', content: [thought, redacted, bashUse('t1', 'ls')] });
    const assistant = lines(cli.stdout).filter((l) => l.type === 'assistant').map((l) => l.message.content);
    // The tool is named as Claude Code names it on its lines (Bash); the history keeps the tool's own name.
    expect(assistant).toEqual([[thought], [redacted], [{ ...bashUse('t1', 'ls'), name: 'Bash' }], [thought2], [{ type: 'text', text: 'There is a.txt.' }]]);
    expect(lines(cli.stdout).at(-1)).toMatchObject({ type: 'result', is_error: false, result: 'There is a.txt.' });
    // Claude Code's thinking_tokens while a block streams: ceil(length / 4) a delta (the server sends 3 deltas a block).
    const tokens = lines(cli.stdout).filter((l) => l.subtype === 'thinking_tokens').map((l) => [l.estimated_tokens, l.estimated_tokens_delta]);
    expect(tokens).toEqual([[3, 3], [6, 3], [9, 3], [2, 2], [4, 2], [5, 1]]);
  });

  it('text output shows the answer, not the thinking', async () => {
    server.enqueue(toolTurn, answerTurn);
    const cli = await run('-p', 'list the files', '--model', 'claude-sonnet-4-5', '--max-thinking-tokens=4096');
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toBe('There is a.txt.\n');
    expect(cli.stderr).not.toContain('One file');
  });

  it('partial messages: thinking_delta and signature_delta stream_events, the block line before its content_block_stop', async () => {
    server.enqueue(answerTurn);
    const cli = await run('-p', 'hi', '--model', 'claude-sonnet-4-5', '--max-thinking-tokens', '2048', '--output-format', 'stream-json', '--verbose', '--include-partial-messages');
    expect(cli.code, cli.stderr).toBe(0);
    const all = lines(cli.stdout);
    const deltas = all.filter((l) => l.type === 'stream_event' && l.event.type === 'content_block_delta' && l.event.index === 0).map((l) => l.event.delta);
    expect(deltas.filter((d) => d.type === 'thinking_delta').map((d) => d.thinking).join('')).toBe('One file: a.txt.');
    expect(deltas.at(-1)).toEqual({ type: 'signature_delta', signature: 'EqQBCkYIBxgCKkD+sig/2==' });
    const blockLine = all.findIndex((l) => l.type === 'assistant' && l.message.content[0].type === 'thinking');
    const stop = all.findIndex((l) => l.type === 'stream_event' && l.event.type === 'content_block_stop' && l.event.index === 0);
    expect(all[blockLine]?.message.content).toEqual([thought2]);
    expect(blockLine).toBeLessThan(stop);
  });

  it('a session stopped inside the tool loop resumes with its thinking blocks unchanged, from the transcript', async () => {
    server.enqueue(toolTurn);
    const stopped = await run('-p', 'list the files', '--model', 'claude-sonnet-4-5', '--max-thinking-tokens', '2048', '--max-turns', '1', '--output-format', 'json');
    const id = (JSON.parse(stopped.stdout) as { session_id: string }).session_id;
    expect(readFileSync(join(project.home, 'sessions', `${id}.jsonl`), 'utf8')).toContain(JSON.stringify(redacted.type === 'redacted_thinking' && redacted.data));
    server.enqueue(answerTurn);
    const resumed = await run('-r', id, '-p', 'go on', '--model', 'claude-sonnet-4-5', '--max-thinking-tokens', '2048', '--output-format', 'json');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.requests[1]?.body?.messages[1]).toEqual({ role: 'assistant', content: [thought, redacted, bashUse('t1', 'ls')] });
    expect(JSON.parse(resumed.stdout)).toMatchObject({ is_error: false, result: 'There is a.txt.' });
  });
});

describe('the other thinking flags', () => {
  it('a model that takes no budget (Opus 4.6 and later, or one agentloop does not know: claude-test) gets {type: adaptive}, with --thinking-display', async () => {
    server.enqueue(toolTurn, answerTurn);
    const cli = await run('-p', 'list the files', '--max-thinking-tokens', '2048', '--thinking-display', 'omitted', '--output-format', 'json');
    expect(cli.code, cli.stderr).toBe(0);
    expect(server.requests.map((r) => r.body?.thinking)).toEqual([{ type: 'adaptive', display: 'omitted' }, { type: 'adaptive', display: 'omitted' }]);
  });

  it('--thinking adaptive on a model that takes a budget: max_tokens - 1, as Claude Code; --thinking disabled and 0: none', async () => {
    server.enqueue(answerTurn, { content: [{ type: 'text', text: 'Plain.' }], stop_reason: 'end_turn' }, { content: [{ type: 'text', text: 'Plain.' }], stop_reason: 'end_turn' });
    expect((await run('-p', 'hi', '--model', 'claude-sonnet-4-5', '--thinking', 'adaptive')).code).toBe(0);
    expect((await run('-p', 'hi', '--max-thinking-tokens', '0')).code).toBe(0);
    expect((await run('-p', 'hi', '--thinking', 'disabled', '--max-thinking-tokens', '2048')).code).toBe(0);
    expect(server.requests.map((r) => [r.body?.thinking, r.body?.max_tokens])).toEqual([[{ type: 'enabled', budget_tokens: 7999 }, 8000], [undefined, 8000], [undefined, 8000]]);
  });

  it.each([
    [['--max-thinking-tokens', '500'], '--max-thinking-tokens 500 is below 1024, the least thinking budget the API takes (0 turns thinking off)'],
    [['--max-thinking-tokens', 'lots'], '--max-thinking-tokens takes a whole number of tokens, not "lots"'],
    [['--max-thinking-tokens', '9000', '--max-tokens', '9000'], '--max-thinking-tokens 9000 must be less than --max-tokens 9000: thinking counts within max_tokens'],
    [['--thinking', 'sometimes'], '--thinking must be adaptive, enabled or disabled, not "sometimes"'],
  ])('%j is refused with one line, exit 2, no request', async (flags, says) => {
    const cli = await run('-p', 'hi', ...flags);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(`agentloop: ${says}`);
    expect(server.requests).toEqual([]);
  });
});
