/** A library run saved as a session: resumable and viewable like a CLI run. */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/core/messages.js';
import { InvalidHistoryError } from '../../src/history/validate.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { restoreConversation } from '../../src/transcript/resume.js';
import { defaultTools } from '../../src/run/defaultTools.js';
import { runAgent } from '../../src/run/runAgent.js';
import { findSession, listSessions, readTranscript, SessionExistsError } from '../../src/transcript/store.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { graphOf } from '../../src/view/server/assets.js';
import { buildTimeline } from '../../src/view/timeline/build.js';
import { echoTool } from '../support/drive.js';
import { bashUse } from '../support/agentServer.js';
import { runCli, startCli } from '../support/cli.js';
import { openCliProject } from '../support/project.js';
import { startSession } from '../../src/transcript/recorder.js';
import type { Question } from '../../src/transcript/records.js';
import { waitFor } from '../support/sessions.js';

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('runAgent({ session: { home } })', () => {
  it('writes a transcript that lists, resumes to the same history, and steps through in the viewer', async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-lib-'));
    const model = scriptedModel([reply.toolUse([{ id: 't1', name: 'echo', input: { text: 'hi' } }]), reply.text('done')]);
    const result = await runAgent('say hi', { model: 'scripted', modelCall: model.call, tools: [echoTool()], session: { home }, cwd: home });
    expect(listSessions(home).map((s) => [s.id, s.firstPrompt, s.exitReason])).toEqual([[result.sessionId, 'say hi', 'completed']]);
    const transcript = readTranscript(findSession(home, result.sessionId));
    expect(transcript.problems).toEqual([]);
    const restored = restoreConversation(transcript.records);
    expect(restored.messages).toEqual(result.context.messages);
    expect(restored.turnCount).toBe(3);
    const timeline = buildTimeline(transcript.records, graphOf(agentMachine));
    expect(timeline.steps.filter((s) => s.state === 'callingModel')).toHaveLength(2);
  });

  it('records the prompt as a message before the model is asked: a run that never got an answer resumes with it', async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-lib-'));
    const model = scriptedModel([]); // no reply at all: the call fails
    const result = await runAgent('important task', { model: 'scripted', modelCall: model.call, tools: [], session: { home }, cwd: home, maxRetries: 0 });
    expect(result.state).toBe('failed');
    const restored = restoreConversation(readTranscript(findSession(home, result.sessionId)).records);
    expect(restored.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'important task' }] }]);
    expect(restored.awaitsModel).toBe(true);
  });
});

describe('runAgent({ session: { home }, sessionId })', () => {
  it('names the new session; an id in use throws SessionExistsError before the model is asked, that transcript untouched', async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-lib-'));
    const model = scriptedModel([reply.text('one')]);
    const first = await runAgent('hi', { model: 'scripted', modelCall: model.call, tools: [], session: { home }, cwd: home, sessionId: 'my-session' });
    expect(first.sessionId).toBe('my-session');
    const before = readFileSync(findSession(home, 'my-session'), 'utf8');
    await expect(runAgent('again', { model: 'scripted', modelCall: model.call, tools: [], session: { home }, cwd: home, sessionId: 'my-session' })).rejects.toThrow(
      SessionExistsError,
    );
    expect(model.requests).toHaveLength(1);
    expect(readFileSync(findSession(home, 'my-session'), 'utf8')).toBe(before);
  });
});

describe('runAgent({ sessionId }) with an id the store would refuse', () => {
  const odd = ["$'x", '../x', '', 'a b', '-a', 'a'.repeat(129), 'a\nb'];
  it.each(odd.map((id) => [JSON.stringify(id), id]))('%s: throws naming it before anything runs, with a session or without', async (_name, id) => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-lib-'));
    const model = scriptedModel([reply.text('one'), reply.text('two'), reply.text('three')]);
    const marker = join(home, 'mcp-started');
    const base = { model: 'scripted', modelCall: model.call, tools: [echoTool()], cwd: home, sessionId: id };
    const runs = [
      base,
      { ...base, session: { home } },
      { ...base, mcpServers: { s: { type: 'stdio' as const, command: 'sh', args: ['-c', `touch ${marker}`], env: {} } } },
    ];
    for (const options of runs) {
      await expect(runAgent('hi', options)).rejects.toThrow(`runAgent: ${JSON.stringify(id)} is not a session id (1 to 128 letters, digits, _ and -, the first a letter or a digit)`);
    }
    expect(model.requests).toHaveLength(0);
    expect(readdirSync(home)).toEqual([]);
  });

  it('a good id without a session names the run', async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-lib-'));
    const model = scriptedModel([reply.text('one')]);
    const result = await runAgent('hi', { model: 'scripted', modelCall: model.call, tools: [], cwd: home, sessionId: 'Run_1-a' });
    expect(result.sessionId).toBe('Run_1-a');
  });
});

describe('runAgent({ messages }) with a history the API would refuse', () => {
  const bad: Array<[string, MessageParam[], RegExp]> = [
    ['an empty text block', [{ role: 'user', content: [{ type: 'text', text: '' }] }, { role: 'assistant', content: 'ok' }], /empty text block/],
    ['a text block of white space', [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'text', text: '\n ' }] }], /white space only/],
    ['a tool_use in a user message', [{ role: 'user', content: [{ type: 'tool_use', id: 'toolu_1', name: 'echo', input: {} }] }, { role: 'assistant', content: 'ok' }], /has a tool_use block/],
    [
      'a tool_result in an assistant message',
      [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] as never }],
      /has a tool_result block/,
    ],
    [
      'a tool_use id outside ^[a-zA-Z0-9_-]+$',
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_../x', name: 'echo', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_../x', content: 'x' }] },
        { role: 'assistant', content: 'ok' },
      ],
      /the API refuses/,
    ],
  ];
  for (const [name, messages, problem] of bad) {
    it(`${name}: throws InvalidHistoryError naming it, before anything is recorded or sent`, async () => {
      home = mkdtempSync(join(tmpdir(), 'agentloop-lib-'));
      const model = scriptedModel([reply.text('never')]);
      const run = runAgent('next', { model: 'scripted', modelCall: model.call, tools: [echoTool()], session: { home }, cwd: home, messages });
      await expect(run).rejects.toThrow(InvalidHistoryError);
      await expect(run).rejects.toThrow(problem);
      expect(model.requests).toHaveLength(0);
      expect(listSessions(home)).toEqual([]);
    });
  }
});

describe('a question of content blocks', () => {
  const question: Question = [
    { type: 'text', text: 'what is in this picture?' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
  ];

  it('is the user message as given, recorded whole, and resumed whole when the run was cut after the prompt', async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-lib-'));
    const model = scriptedModel([reply.text('a cat')]);
    const result = await runAgent(question, { model: 'scripted', modelCall: model.call, tools: [], session: { home }, cwd: home });
    expect(result.context.messages[0]).toEqual({ role: 'user', content: question });
    const transcript = readTranscript(findSession(home, result.sessionId));
    expect(transcript.problems).toEqual([]);
    expect(transcript.records[1]).toMatchObject({ type: 'prompt', text: 'what is in this picture?', content: question });
    expect(restoreConversation(transcript.records).messages).toEqual(result.context.messages);
    expect(listSessions(home)[0]?.firstPrompt).toBe('what is in this picture?');

    // Only the header and the prompt on disk (a kill right after that write): the blocks come back.
    const cut = startSession(home, { cwd: home, model: 'scripted', prompt: question });
    cut.close();
    const restored = restoreConversation(readTranscript(cut.path).records);
    expect(restored.messages).toEqual([{ role: 'user', content: question }]);
    expect(restored.awaitsModel).toBe(true);
  });
});

describe('a library run saved as a session, then the CLI', () => {
  it('agentloop --resume ID goes on with it, agentloop sessions lists it, agentloop view ID serves it', async () => {
    const project = await openCliProject('libcli');
    home = project.home;
    try {
      const { server, dir, env } = project;
      server.enqueue({ content: [bashUse('toolu_1', 'echo from-the-library')], stop_reason: 'tool_use' }, {
        content: [{ type: 'text', text: 'The library run is done.' }],
        stop_reason: 'end_turn',
      });
      const client = { apiKey: env.ANTHROPIC_API_KEY as string, baseURL: server.url };
      const library = await runAgent('run echo', { model: 'claude-test', client, session: { home }, cwd: dir, tools: defaultTools({ cwd: dir }), maxRetries: 0 });
      expect(library.state).toBe('done');

      const sessions = await runCli(['sessions', '--output-format', 'json'], { cwd: dir, env });
      expect(JSON.parse(sessions.stdout)).toMatchObject([{ id: library.sessionId, firstPrompt: 'run echo', exitReason: 'completed', turns: 2 }]);

      server.enqueue({ content: [{ type: 'text', text: 'Went on.' }], stop_reason: 'end_turn' });
      const resumed = await runCli(['--resume', library.sessionId, '-p', 'and now?', '--output-format', 'json'], { cwd: dir, env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ session_id: library.sessionId, result: 'Went on.' });
      // The cache breakpoints the model service adds are not part of the history.
      const sent = JSON.parse(JSON.stringify(server.requests[2]?.body?.messages ?? [], (key, value: unknown) => (key === 'cache_control' ? undefined : value))) as unknown[];
      expect(sent.slice(0, 4)).toEqual(library.context.messages);
      expect(sent[4]).toEqual({ role: 'user', content: [{ type: 'text', text: 'and now?' }] });
      expect(server.violations).toEqual([]);

      const view = startCli(['view', library.sessionId.slice(0, 8)], { cwd: dir, env });
      try {
        const url = await waitFor('the URL on stdout', () => /^(http:\/\/127\.0\.0\.1:(\d+)\/\?token=([\w-]+)\S*)\n/.exec(view.output().stdout) ?? undefined);
        const [, , port, token] = url;
        const response = await fetch(`http://127.0.0.1:${port}/api/sessions/${library.sessionId}`, { headers: { authorization: `Bearer ${token}` } });
        expect(response.status).toBe(200);
        const timeline = (await response.json()) as { steps: { state: string }[]; messages: unknown[] };
        expect(timeline.steps.filter((s) => s.state === 'callingModel')).toHaveLength(3);
        expect(timeline.messages.length).toBeGreaterThanOrEqual(6);
      } finally {
        view.child.kill('SIGINT');
        await view.done;
      }
    } finally {
      await project.close();
    }
  });
});
