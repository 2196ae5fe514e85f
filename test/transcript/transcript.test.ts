import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { historyProblems } from '../../src/history/validate.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import type { MessageParam } from '../../src/core/messages.js';
import type { SessionRecord } from '../../src/transcript/records.js';
import { startSession } from '../../src/transcript/recorder.js';
import { INTERRUPTED_TOOL_RESULT, restoreConversation } from '../../src/transcript/resume.js';
import { runAgent } from '../../src/run/runAgent.js';
import {
  agentloopHome,
  findSession,
  listSessions,
  newestSessionFor,
  parseTranscript,
  readTranscript,
  SessionExistsError,
  SessionNotFoundError,
  TranscriptWriter,
} from '../../src/transcript/store.js';
import { echoTool } from '../support/drive.js';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'agentloop-store-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const at = '2026-01-01T00:00:00.000Z';
const header = (id: string, cwd = '/w'): SessionRecord => ({ type: 'session', version: 1, id, cwd, createdAt: at, model: 'm' });
const message = (index: number, m: MessageParam, synthetic = false): SessionRecord => ({
  type: 'message',
  at,
  index,
  message: m,
  ...(synthetic ? { synthetic: true as const } : {}),
});
const request = (turnCount: number, messageCount: number): SessionRecord => ({
  type: 'request',
  at,
  turnCount,
  messageCount,
  body: { model: 'm', max_tokens: 10 },
  messageCacheMarks: [],
});
const user = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
const toolUse = (...ids: string[]): MessageParam => ({
  role: 'assistant',
  content: ids.map((id) => ({ type: 'tool_use' as const, id, name: 'bash', input: { command: `echo ${id}` } })),
});

describe('the store', () => {
  it('uses $AGENTLOOP_HOME, else ~/.agentloop', () => {
    expect(agentloopHome({ AGENTLOOP_HOME: '/x/y' })).toBe('/x/y');
    expect(agentloopHome({})).toMatch(/\.agentloop$/);
  });

  it('creates a transcript with its header, private to the user, and refuses to overwrite one', () => {
    const writer = TranscriptWriter.create(home, header('s1') as never);
    writer.write({ type: 'prompt', at, text: 'hi' });
    writer.close();
    const path = findSession(home, 's1');
    expect(readTranscript(path)).toMatchObject({ header: { id: 's1' }, problems: [], records: [{ type: 'session' }, { type: 'prompt' }] });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(() => TranscriptWriter.create(home, header('s1') as never)).toThrow(SessionExistsError);
    expect(() => writer.write({ type: 'prompt', at, text: 'late' })).toThrow(/closed/);
  });

  it('reports a torn or corrupt line and skips it; reopening starts on a fresh line', () => {
    const writer = TranscriptWriter.create(home, header('s2') as never);
    writer.write({ type: 'prompt', at, text: 'one' });
    writer.close();
    const path = findSession(home, 's2');
    writeFileSync(path, `${readFileSync(path, 'utf8')}not json\n{"type":"prompt","at":"${at}","te`);
    const torn = readTranscript(path);
    expect(torn.records.map((r) => r.type)).toEqual(['session', 'prompt']);
    expect(torn.problems).toEqual([
      'line 3: not valid JSON (cut off by a crash?): skipped',
      'line 4 (the last, unfinished): not valid JSON (cut off by a crash?): skipped',
    ]);
    const again = TranscriptWriter.reopen(path);
    again.write({ type: 'prompt', at, text: 'two' });
    again.close();
    expect(readTranscript(path).records.map((r) => (r.type === 'prompt' ? r.text : r.type))).toEqual(['session', 'one', 'two']);
  });

  it('a transcript without a header is a problem, not a crash', () => {
    expect(parseTranscript('{"type":"prompt","at":"x","text":"y"}\n').problems).toEqual([
      'the transcript does not start with a session header',
    ]);
  });

  it('finds sessions by a unique id prefix and the newest one of a directory', async () => {
    for (const [id, cwd] of [
      ['aaaa1111', '/one'],
      ['aaaa2222', '/two'],
      ['bbbb3333', '/one'],
    ] as const) {
      const writer = TranscriptWriter.create(home, header(id, cwd) as never);
      writer.write({ type: 'prompt', at, text: `prompt of ${id}` });
      writer.close();
      await new Promise((resolve) => setTimeout(resolve, 15)); // distinct modification times
    }
    expect(findSession(home, 'bbbb')).toMatch(/bbbb3333\.jsonl$/);
    expect(() => findSession(home, 'aaaa')).toThrow(/ambiguous/);
    expect(() => findSession(home, 'cccc')).toThrow(SessionNotFoundError);
    expect(() => findSession(home, '../etc')).toThrow(SessionNotFoundError);
    expect(listSessions(home).map((s) => s.id)).toEqual(['bbbb3333', 'aaaa2222', 'aaaa1111']);
    expect(newestSessionFor(home, '/one')?.id).toBe('bbbb3333');
    expect(newestSessionFor(home, '/three')).toBeUndefined();
    expect(listSessions(home)[0]).toMatchObject({ firstPrompt: 'prompt of bbbb3333', turns: 0, exitReason: 'interrupted' });
  });
});

describe('restoring a conversation', () => {
  it('goes on from a history that ends with a user message, at the turn that was cut', () => {
    const restored = restoreConversation([header('s'), message(0, user('hi')), request(1, 1)]);
    expect(restored).toMatchObject({ messages: [user('hi')], awaitsModel: true, turnCount: 1, repaired: [], problems: [] });
  });

  it('answers every tool_use left open: finished results are kept, the others are interrupted, nothing reruns', () => {
    const finished = { type: 'tool_result' as const, tool_use_id: 't1', content: 'one' };
    const restored = restoreConversation([
      header('s'),
      message(0, user('go')),
      request(1, 1),
      message(1, toolUse('t1', 't2')),
      { type: 'tool_start', at, block: { type: 'tool_use', id: 't1', name: 'bash', input: {} } },
      { type: 'tool_start', at, block: { type: 'tool_use', id: 't2', name: 'bash', input: {} } },
      { type: 'tool_result', at, toolUseId: 't1', name: 'bash', result: finished },
    ]);
    expect(restored.recordedCount).toBe(2);
    expect(restored.turnCount).toBe(2);
    expect(restored.awaitsModel).toBe(true);
    expect(restored.messages[2]).toEqual({
      role: 'user',
      content: [finished, { type: 'tool_result', tool_use_id: 't2', content: INTERRUPTED_TOOL_RESULT, is_error: true }],
    });
    expect(restored.repaired).toEqual(['answered bash t2 as interrupted (not run again)', 'added the 1 tool result that had finished']);
    expect(historyProblems(restored.messages)).toEqual([]);
  });

  it('keeps the tool_use blocks that started while a reply streamed, when the reply itself was never recorded', () => {
    const block = { type: 'tool_use' as const, id: 't9', name: 'bash', input: { command: 'ls' } };
    const restored = restoreConversation([
      header('s'),
      message(0, user('go')),
      { type: 'tool_start', at, block: { ...block, id: 'old' } }, // before the last request: not this reply's
      request(1, 1),
      { type: 'tool_start', at, block },
    ]);
    expect(restored.messages.slice(1)).toEqual([
      { role: 'assistant', content: [block] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't9', content: INTERRUPTED_TOOL_RESULT, is_error: true }] },
    ]);
    expect(restored.recordedCount).toBe(1);
    expect(restored.turnCount).toBe(2);
    expect(historyProblems(restored.messages)).toEqual([]);
  });

  it('a finished conversation needs a new prompt; a later record for an index replaces the earlier one', () => {
    const restored = restoreConversation([
      header('s'),
      message(0, user('a')),
      message(0, user('a, and b')),
      request(1, 1),
      message(1, { role: 'assistant', content: [{ type: 'text', text: 'done' }] }),
    ]);
    expect(restored.messages[0]).toEqual(user('a, and b'));
    expect(restored.awaitsModel).toBe(false);
    expect(restored.turnCount).toBe(2);
  });

  it('counts turns from the last resume when nothing was asked since', () => {
    const restored = restoreConversation([
      header('s'),
      message(0, user('a')),
      { type: 'resume', at, turnCount: 4, repaired: [] },
    ]);
    expect(restored.turnCount).toBe(4);
  });

  it('stops at a missing message; a header alone is an empty conversation that a new prompt starts', () => {
    expect(restoreConversation([header('s')])).toMatchObject({ messages: [], problems: [], awaitsModel: false, turnCount: 1 });
    const gap = restoreConversation([header('s'), message(0, user('a')), message(2, user('c'))]);
    expect(gap.messages).toEqual([user('a')]);
    expect(gap.repaired).toEqual(['messages from index 1 on were unreadable and are left out']);
  });
});

describe('the recorder', () => {
  it('records a run so that its messages, every request body and the usage can be rebuilt', async () => {
    const model = scriptedModel([
      { ...reply.toolUse([{ id: 't1', name: 'echo', input: { text: 'a' } }]), usage: { input_tokens: 50, output_tokens: 5, cache_creation_input_tokens: 40 } },
      { ...reply.toolUse([{ id: 't2', name: 'echo', input: { text: 'b' } }]), usage: { input_tokens: 60, output_tokens: 6, cache_read_input_tokens: 40 } },
      reply.text('Finished.', { input_tokens: 70, output_tokens: 7, cache_read_input_tokens: 55 }),
    ]);
    const recorder = startSession(home, { cwd: '/w', model: 'test-model' });
    recorder.prompt('echo twice');
    const result = await runAgent('echo twice', {
      model: 'test-model',
      modelCall: model.call,
      tools: [echoTool()],
      cwd: home,
      sessionId: recorder.id,
      onEvent: recorder.onEvent,
    });
    recorder.finish(result);
    recorder.close();

    const transcript = readTranscript(findSession(home, recorder.id));
    expect(transcript.problems).toEqual([]);
    const records = transcript.records;
    const restored = restoreConversation(records);
    expect(restored.messages).toEqual(result.context.messages);
    expect(restored.turnCount).toBe(4);

    // Each request record plus the recorded messages gives back the exact body that was sent.
    const requests = records.filter((r) => r.type === 'request');
    expect(requests).toHaveLength(3);
    requests.forEach((r, i) => {
      const messages = structuredClone(restored.messages.slice(0, r.messageCount));
      for (const [m, b] of r.messageCacheMarks) {
        const content = messages[m]?.content as unknown as Array<Record<string, unknown>>;
        (content[b] as Record<string, unknown>).cache_control = { type: 'ephemeral' };
      }
      expect({ ...r.body, messages }).toEqual(model.requests[i]);
      expect(JSON.stringify(r.body)).not.toContain('"messages"');
    });

    expect(records.filter((r) => r.type === 'usage').map((r) => r.type === 'usage' && r.usage)).toEqual(result.context.turnUsage);
    expect(records.at(-1)).toMatchObject({
      type: 'result',
      exitReason: 'completed',
      turnCount: 3,
      usage: { input_tokens: 180, output_tokens: 18, cache_creation_input_tokens: 40, cache_read_input_tokens: 95 },
    });
    expect(records.filter((r) => r.type === 'transition').map((r) => r.type === 'transition' && [r.state, r.turnCount, r.transitionReason])).toEqual([
      ['callingModel', 1, null],
      ['executingTools', 1, null],
      ['appendingResults', 1, 'tool_result'],
      ['callingModel', 2, 'tool_result'],
      ['executingTools', 2, 'tool_result'],
      ['appendingResults', 2, 'tool_result'],
      ['callingModel', 3, 'tool_result'],
      ['done', 3, null],
    ]);
    expect(records.filter((r) => r.type === 'tool_result').map((r) => r.type === 'tool_result' && r.toolUseId)).toEqual(['t1', 't2']);
  });

  it('grows linearly: a request record does not repeat the conversation', async () => {
    const turns = 30;
    const steps = Array.from({ length: turns - 1 }, (_, i) => reply.toolUse([{ id: `t${i}`, name: 'echo', input: { text: 'x'.repeat(200) } }]));
    const model = scriptedModel([...steps, reply.text('done')]);
    const recorder = startSession(home, { cwd: '/w', model: 'm' }, { durable: false });
    const result = await runAgent('go', { model: 'm', modelCall: model.call, tools: [echoTool()], cwd: home, maxTurns: 100, onEvent: recorder.onEvent });
    recorder.close();
    expect(result.context.turnCount).toBe(turns);
    const lines = readFileSync(findSession(home, recorder.id), 'utf8').trim().split('\n');
    const requestSizes = lines.filter((l) => l.startsWith('{"type":"request"')).map((l) => l.length);
    expect(Math.max(...requestSizes) - Math.min(...requestSizes)).toBeLessThan(50);
  });

  it('stops recording, once and quietly, when a write fails; the run goes on', async () => {
    const errors: Error[] = [];
    const recorder = startSession(home, { cwd: '/w', model: 'm' }, { onError: (e) => errors.push(e) });
    recorder.close(); // every later write fails
    const result = await runAgent('hi', { model: 'm', modelCall: scriptedModel([reply.text('ok')]).call, tools: [], onEvent: recorder.onEvent });
    expect(result.context.exitReason).toBe('completed');
    expect(errors).toHaveLength(1);
    expect(recorder.failure?.message).toMatch(/closed/);
  });
});
