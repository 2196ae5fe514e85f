/**
 * The control lines of `--input-format stream-json` that the Claude Agent SDK cannot be made to send (issue 27, "What
 * to build"): `keep_alive`, a `control_cancel_request` from the host, a bad control line, an initialize that asks for
 * what agentloop does not do, and `--await-initialize` (no turn before the initialize request). The CLI runs as a real
 * process against the local Messages API server; stdin is written line by line, as a host writes it.
 */
import { describe, expect, it } from 'vitest';
import { startCli } from '../../support/cli.js';
import type { MessagesServer } from '../../support/messagesServer.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';
import { waitFor } from '../../support/sessions.js';

let project: CliProject;
let server: MessagesServer;
cliProjectPerTest('streamcontrol', (p) => { project = p; server = p.server; }, { noViolations: true });

const STREAM = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json'];
const answer = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const user = (content: string) => line({ type: 'user', message: { role: 'user', content } });
const initialize = (id: string, extra: Record<string, unknown> = {}) => line({ type: 'control_request', request_id: id, request: { subtype: 'initialize', ...extra } });
type Line = Record<string, unknown> & { type: string; subtype?: string; response?: { subtype: string; request_id?: string; error?: string } };
const linesOf = (stdout: string): Line[] => stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Line);
const results = (stdout: string) => linesOf(stdout).filter((l) => l.type === 'result');
const systemText = (index: number) => {
  const system = server.requests[index]?.body?.system;
  return Array.isArray(system) ? system.map((b) => b.text).join('') : (system ?? '');
};

/** Starts the CLI with its stdin open; `send` writes lines, `end` closes stdin and waits for the exit. */
function session(args: string[] = []) {
  const cli = startCli([...STREAM, ...args], { cwd: project.dir, env: project.env, openStdin: true });
  return {
    send: (...lines: string[]) => lines.forEach((l) => cli.child.stdin?.write(l)),
    stdout: () => cli.output().stdout,
    end: async () => {
      cli.child.stdin?.end();
      return cli.done;
    },
  };
}

describe('control lines a host sends besides the SDK-driven ones', () => {
  it('keep_alive and a control_cancel_request of the host are taken in silence: no line on stdout or stderr, the turns go on', async () => {
    server.enqueue({ ...answer('One.'), delayMs: 300 }, answer('Two.'));
    const s = session();
    s.send(line({ type: 'keep_alive' }), user('one'));
    await waitFor('the first request', () => server.requests.length === 1);
    // While the turn runs (stdin is read all along), and between turns.
    s.send(line({ type: 'keep_alive' }), line({ type: 'control_cancel_request', request_id: 'req_never_sent' }));
    await waitFor('the first result', () => results(s.stdout()).length === 1);
    s.send(line({ type: 'keep_alive' }), user('two'), line({ type: 'control_cancel_request', request_id: 'req_other' }));
    const done = await s.end();
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toBe('');
    const kinds = linesOf(done.stdout).map((l) => l.subtype ?? l.type);
    expect(kinds).toEqual(['init', 'assistant', 'success', 'init', 'assistant', 'success']);
    expect(results(done.stdout).map((r) => r.result)).toEqual(['One.', 'Two.']);
  });

  it('a bad control line goes to stderr only (never a line the program receives); one with a request_id gets an error answer', async () => {
    server.enqueue(answer('Still here.'));
    const s = session();
    s.send(
      line({ type: 'control_request', request: { subtype: 'interrupt' } }), // no request_id
      line({ type: 'control_response', response: { subtype: 'success' } }), // no request_id
      line({ type: 'control_cancel_request' }), // no request_id
      line({ type: 'control_request', request_id: 'req_1', request: {} }), // no subtype
      user('hi'),
    );
    const done = await s.end();
    expect(done.code, done.stderr).toBe(0);
    const lines = linesOf(done.stdout);
    expect(lines.filter((l) => l.type === 'system' && l.subtype === 'input_error')).toEqual([]);
    expect(lines.map((l) => l.subtype ?? l.type)).toEqual(['control_response', 'init', 'assistant', 'success']);
    expect(lines[0]?.response).toMatchObject({ subtype: 'error', request_id: 'req_1', error: expect.stringMatching(/subtype/) });
    const stderr = done.stderr.trimEnd().split('\n');
    expect(stderr).toEqual([
      expect.stringMatching(/^agentloop: stdin line 1: a control_request needs a string request_id: skipped$/),
      expect.stringMatching(/^agentloop: stdin line 2: a control_response needs .*: skipped$/),
      expect.stringMatching(/^agentloop: stdin line 3: a control_cancel_request needs a request_id: skipped$/),
    ]);
    expect(results(done.stdout)).toMatchObject([{ result: 'Still here.' }]);
  });

  it('an initialize asking for an unsupported field or hook event gets an error answer naming it; the session goes on, as Claude Code 2.1.197 goes on', async () => {
    server.enqueue(answer('Went on.'));
    const s = session();
    s.send(initialize('req_agents', { agents: { reviewer: { description: 'Reviews', prompt: 'Review.', skills: ['pdf'] } } }));
    s.send(initialize('req_hook', { hooks: { SessionStart: [{ hookCallbackIds: ['hook_0'] }] } }));
    s.send(user('hi'));
    const done = await s.end();
    expect(done.code, done.stderr).toBe(0);
    const answers = linesOf(done.stdout).filter((l) => l.type === 'control_response').map((l) => l.response);
    expect(answers).toEqual([
      { subtype: 'error', request_id: 'req_agents', error: 'initialize: agentloop does not support agents.reviewer.skills' },
      { subtype: 'error', request_id: 'req_hook', error: expect.stringMatching(/^agentloop does not support SessionStart hooks/) },
    ]);
    expect(results(done.stdout)).toMatchObject([{ is_error: false, result: 'Went on.' }]);
  });

  it('--await-initialize: a user message that comes first waits for the initialize request, whose setup its turn has', async () => {
    server.enqueue(answer('Set up.'));
    const s = session(['--await-initialize']);
    s.send(user('hi'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(server.requests).toHaveLength(0);
    expect(s.stdout()).toBe('');
    s.send(initialize('req_init', { systemPrompt: 'You answer in two words.' }));
    await waitFor('the result', () => results(s.stdout()).length === 1);
    const done = await s.end();
    expect(done.code, done.stderr).toBe(0);
    expect(linesOf(done.stdout).map((l) => l.subtype ?? l.type)).toEqual(['control_response', 'init', 'assistant', 'success']);
    expect(systemText(0)).toBe('You answer in two words.');
  });

  it('--await-initialize: stdin that ends before the initialize request runs no turn, says so in one line and exits 1', async () => {
    const s = session(['--await-initialize']);
    s.send(user('hi'));
    const done = await s.end();
    expect(done.code).toBe(1);
    expect(done.stdout).toBe('');
    expect(done.stderr).toBe('agentloop: stdin ended before the initialize request that --await-initialize waits for: no turn ran\n');
    expect(server.requests).toHaveLength(0);
  });
});
