/**
 * Claude Code's session flags (issue 10, item 2): `-r/--resume ID`, `--session-id UUID` and
 * `--fork-session`, the CLI as a real process against the local Messages API server, which
 * refuses (and counts) every request whose history is not valid.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../support/cli.js';
import type { MessagesServer, RequestBody } from '../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../support/project.js';

let project: CliProject;
let server: MessagesServer;

cliProjectPerTest('sessionflags', (p) => { project = p; server = p.server; }, { noViolations: true });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const run = (...args: string[]) => runCli(args, { cwd: project.dir, env: project.env });
const transcriptPath = (id: string) => join(project.home, 'sessions', `${id}.jsonl`);
const transcript = (id: string) => readFileSync(transcriptPath(id), 'utf8');
const header = (id: string) => JSON.parse(transcript(id).split('\n')[0] as string) as Record<string, unknown>;

/** The result of a `--output-format json` run that succeeded. */
function result(cli: CliRun): { session_id: string; result: string } {
  expect(cli.code, cli.stderr).toBe(0);
  return JSON.parse(cli.stdout) as { session_id: string; result: string };
}

/** The texts of a request's messages, one list per message. */
function texts(body: RequestBody | undefined): string[][] {
  return (body?.messages ?? []).map((m) =>
    typeof m.content === 'string' ? [m.content] : m.content.map((b) => (b.type === 'text' ? b.text : b.type)),
  );
}

/** The ids `agentloop sessions` lists. */
async function listed(): Promise<string[]> {
  const cli = await run('sessions', '--output-format', 'json');
  expect(cli.code, cli.stderr).toBe(0);
  return (JSON.parse(cli.stdout) as { id: string }[]).map((s) => s.id).sort();
}

/** A first session: one question answered. */
async function firstSession(): Promise<string> {
  server.enqueue(answer('First answer.'));
  return result(await run('-p', 'first question', '--output-format', 'json')).session_id;
}

describe('--session-id UUID', () => {
  it('gives a new session that id: in the result, the transcript and the list', async () => {
    const id = randomUUID();
    server.enqueue(answer('Hi.'));
    expect(result(await run('-p', 'hello', '--session-id', id, '--output-format', 'json')).session_id).toBe(id);
    expect(header(id)).toMatchObject({ type: 'session', id });
    expect(await listed()).toEqual([id]);
    // ... and it resumes by that id.
    server.enqueue(answer('Again.'));
    expect(result(await run('--resume', id, '-p', 'again', '--output-format', 'json')).session_id).toBe(id);
    expect(texts(server.requests[1]?.body)).toEqual([['hello'], ['Hi.'], ['again']]);
  });

  it('refuses an id that is taken, in one line, before asking the model: that transcript is untouched', async () => {
    const id = await firstSession();
    const before = transcript(id);
    const requests = server.requests.length;
    const again = await run('-p', 'other question', '--session-id', id);
    expect(again.code).toBe(2);
    expect(again.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(again.stderr).toContain(`session ${id} exists already`);
    expect(again.stdout).toBe('');
    expect(transcript(id)).toBe(before);
    expect(server.requests.length).toBe(requests);
  });
});

describe('-r ID', () => {
  it('is --resume: the same session goes on, its history in the next request', async () => {
    const id = await firstSession();
    server.enqueue(answer('Second answer.'));
    expect(result(await run('-r', id.slice(0, 8), '-p', 'second question', '--output-format', 'json')).session_id).toBe(id);
    expect(texts(server.requests[1]?.body)).toEqual([['first question'], ['First answer.'], ['second question']]);
    expect(await listed()).toEqual([id]);
  });
});

describe('--fork-session', () => {
  it('with --resume goes on from that history in a new session; the old transcript is not touched', async () => {
    const old = await firstSession();
    const before = transcript(old);

    server.enqueue(answer('Forked answer.'));
    const forked = result(await run('--resume', old, '--fork-session', '-p', 'fork question', '--output-format', 'json')).session_id;
    expect(forked).toMatch(UUID);
    expect(forked).not.toBe(old);
    expect(texts(server.requests[1]?.body)).toEqual([['first question'], ['First answer.'], ['fork question']]);
    expect(transcript(old)).toBe(before);
    expect(header(forked)).toMatchObject({ id: forked, forkedFrom: old });
    expect(await listed()).toEqual([old, forked].sort());

    // The fork is a session of its own: resuming it has the old history and its own turn ...
    server.enqueue(answer('Third answer.'));
    expect(result(await run('-r', forked, '-p', 'third question', '--output-format', 'json')).session_id).toBe(forked);
    expect(texts(server.requests[2]?.body)).toEqual([
      ['first question'],
      ['First answer.'],
      ['fork question'],
      ['Forked answer.'],
      ['third question'],
    ]);
    // ... and the old session goes on without the fork's turns.
    server.enqueue(answer('Back on the old one.'));
    expect(result(await run('-r', old, '-p', 'back', '--output-format', 'json')).session_id).toBe(old);
    expect(texts(server.requests[3]?.body)).toEqual([['first question'], ['First answer.'], ['back']]);
  });

  it('with --continue and --session-id names the new session; a taken id is refused, nothing written', async () => {
    const old = await firstSession();
    const before = transcript(old);
    const id = randomUUID();
    server.enqueue(answer('Forked.'));
    expect(result(await run('--continue', '--fork-session', '--session-id', id, '-p', 'next', '--output-format', 'json')).session_id).toBe(id);
    expect(texts(server.requests[1]?.body)).toEqual([['first question'], ['First answer.'], ['next']]);
    expect(transcript(old)).toBe(before);

    const taken = await run('--resume', id, '--fork-session', '--session-id', old, '-p', 'next again');
    expect(taken.code).toBe(2);
    expect(taken.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(taken.stderr).toContain(`session ${old} exists already`);
    expect(transcript(old)).toBe(before);
    expect(server.requests).toHaveLength(2);
  });

  it('of a run cut off before its answer asks the model again in the new session, the old one left as it was', async () => {
    server.enqueue({ error: { status: 400, type: 'invalid_request_error', message: 'not now' } });
    const failed = await run('-p', 'unanswered question', '--output-format', 'json', '--max-retries', '0');
    expect(failed.code).toBe(1);
    const old = (JSON.parse(failed.stdout) as { session_id: string }).session_id;
    const before = transcript(old);

    server.enqueue(answer('Answered at last.'));
    const forked = result(await run('--resume', old, '--fork-session', '--output-format', 'json'));
    expect(forked.result).toBe('Answered at last.');
    expect(forked.session_id).not.toBe(old);
    expect(texts(server.requests[1]?.body)).toEqual([['unanswered question']]);
    expect(transcript(old)).toBe(before);
    expect(existsSync(transcriptPath(forked.session_id))).toBe(true);
  });
});
