/**
 * A reply that would make the history invalid never poisons the session (issue 11, item 2),
 * through the CLI against the local Messages API server: a streamed tool_use whose input is
 * valid JSON but not an object, or two tool_use blocks with one id. Such a reply is never
 * appended: it is retried like a malformed stream (the retry answers well: the run completes),
 * or the run fails cleanly with `model_error`; either way every request sent is a valid history,
 * none of its commands ran, and `--continue` goes on.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cliProjectPerTest } from '../support/project.js';
import { describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { bashUse } from '../support/agentServer.js';
import { RUN_EVERYTHING, runCli } from '../support/cli.js';
import type { MessagesServer, ReplyStep } from '../support/messagesServer.js';
import { transcripts } from '../support/sessions.js';

let server: MessagesServer;
let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;

cliProjectPerTest('invalid', (project) => ({ server, dir, home, env } = project));

/** A tool_use block whose input is any JSON value (the server streams it as `input_json_delta`). */
const oddUse = (id: string, input: unknown) => ({ type: 'tool_use' as const, id, name: 'bash', input: input as Record<string, unknown> });

const CASES: Array<[string, ReplyStep]> = [
  ['input [1,2]', { content: [oddUse('toolu_odd', [1, 2])], stop_reason: 'tool_use' }],
  ['input null', { content: [oddUse('toolu_odd', null)], stop_reason: 'tool_use' }],
  ['input "echo hi"', { content: [oddUse('toolu_odd', 'echo hi')], stop_reason: 'tool_use' }],
  [
    'two tool_use blocks with one id',
    { content: [bashUse('toolu_twice', 'touch first-ran'), bashUse('toolu_twice', 'touch second-ran')], stop_reason: 'tool_use' },
  ],
];
const good = { content: [{ type: 'text' as const, text: 'Fine.' }], stop_reason: 'end_turn' as const };

function expectValidRequests(): void {
  expect(server.violations).toEqual([]);
  for (const request of server.requests) expect(historyProblems(request.body?.messages ?? [])).toEqual([]);
  expect(existsSync(join(dir, 'first-ran')) || existsSync(join(dir, 'second-ran'))).toBe(false);
}

describe('a reply that would break the history', () => {
  for (const [name, bad] of CASES) {
    it(`${name}: retried, never appended; the run completes`, async () => {
      server.enqueue(bad, good);
      const run = await runCli(['-p', 'go', '--output-format', 'json', RUN_EVERYTHING], { cwd: dir, env }); // its touch must run
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ exit_reason: 'completed', result: 'Fine.' });
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]?.body?.messages).toEqual(server.requests[0]?.body?.messages);
      expectValidRequests();
      // Only the refusal and the retry name the block, in their reason; no message record holds it.
      const lines = ([...transcripts(home).values()][0] ?? '').split('\n').filter((l) => l.includes('toolu_odd'));
      expect(lines.every((l) => /^\{"type":"(retry|reply_refused)"/.test(l))).toBe(true);
    });

    it(`${name}: every time: a clean model_error, and --continue goes on`, async () => {
      server.enqueue(bad, bad);
      const run = await runCli(['-p', 'go', '--output-format', 'json', '--max-retries', '1', RUN_EVERYTHING], { cwd: dir, env });
      expect(run.code, run.stderr).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({ exit_reason: 'model_error' });
      server.enqueue(good);
      const resumed = await runCli(['--continue', '--output-format', 'json', RUN_EVERYTHING], { cwd: dir, env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ exit_reason: 'completed', result: 'Fine.' });
      expect(server.requests).toHaveLength(3);
      expectValidRequests();
    });
  }
});
