/**
 * A transcript cut anywhere after its first line resumes (issue 11, item 1): every prefix of a
 * real recorded session, and every prefix with its last line torn in half, restores to a valid
 * history that keeps everything recorded, the prompt included.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from '../../src/history/messages.js';
import { historyProblems } from '../../src/history/validate.js';
import type { MessageParam } from '../../src/core/messages.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { startSession } from '../../src/transcript/recorder.js';
import { recordedMessages, restoreConversation } from '../../src/transcript/resume.js';
import { runAgent } from '../../src/run/runAgent.js';
import { parseTranscript, readTranscript } from '../../src/transcript/store.js';
import { echoTool } from '../support/drive.js';

let home: string;
let text: string;
const PROMPTS = ['first question', 'second question'];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'agentloop-cuts-'));
  const model = scriptedModel([
    reply.toolUse([
      { id: 't1', name: 'echo', input: { text: 'a' } },
      { id: 't2', name: 'echo', input: { text: 'b' } },
    ]),
    reply.text('First answer.'),
    reply.toolUse([{ id: 't3', name: 'echo', input: { text: 'c' } }]),
    reply.text('Second answer.'),
  ]);
  // Two questions in one session, as the REPL asks them.
  const recorder = startSession(home, { cwd: '/w', model: 'm', prompt: PROMPTS[0] }, { durable: false });
  let messages: MessageParam[] = [];
  for (const prompt of PROMPTS) {
    recorder.prompt(prompt);
    const result = await runAgent(prompt, { model: 'm', modelCall: model.call, tools: [echoTool()], cwd: home, messages, onEvent: recorder.onEvent });
    recorder.finish(result);
    messages = result.context.messages;
  }
  recorder.close();
  text = readFileSync(recorder.path, 'utf8');
  expect(readTranscript(recorder.path).problems).toEqual([]);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('a transcript cut anywhere', () => {
  it('restores, at every line and with every last line torn, to a valid history that keeps what was recorded', () => {
    const lines = text.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('{"type":"prompt"'))).toHaveLength(2); // each prompt once
    let cuts = 0;
    for (let n = 1; n <= lines.length; n++) {
      const whole = lines.slice(0, n).join('\n') + '\n';
      const torn = n < lines.length ? whole + (lines[n] as string).slice(0, Math.floor((lines[n] as string).length / 2)) : undefined;
      for (const cut of torn === undefined ? [whole] : [whole, torn]) {
        cuts += 1;
        const where = `cut after line ${n}${cut === torn ? ' + half a line' : ''}`;
        const { records, problems } = parseTranscript(cut);
        expect(problems.filter((p) => !p.includes('unfinished')), where).toEqual([]);
        const restored = restoreConversation(records);
        expect(restored.problems, where).toEqual([]);
        if (restored.messages.length > 0) expect(historyProblems(restored.messages), where).toEqual([]);
        // Every message recorded is kept as it was recorded (the repair only adds after them).
        const recorded = recordedMessages(records).messages;
        expect(restored.messages.slice(0, restored.recordedCount), where).toEqual(recorded.slice(0, restored.recordedCount));
        // Every prompt recorded is in the history the run goes on from.
        const asked = records.flatMap((r) => (r.type === 'prompt' ? [r.text] : []));
        const said = restored.messages.filter((m) => m.role === 'user').map((m) => textOf(m.content));
        for (const prompt of asked) expect(said.some((s) => s.includes(prompt)), `${where}: "${prompt}"`).toBe(true);
        // The run can go on: it asks the model, or the last answer is complete and a new prompt follows.
        const last = restored.messages.at(-1);
        if (last) expect(restored.awaitsModel || (last.role === 'assistant' && textOf(last.content).endsWith('answer.')), where).toBe(true);
      }
    }
    expect(cuts).toBe(2 * lines.length - 1);
  });

  it('a prompt the run never wrote to the history is its next user message, asked again', () => {
    const lines = text.trimEnd().split('\n');
    const secondPrompt = lines.findIndex((l) => l.includes(`"text":"${PROMPTS[1]}"`));
    const restored = restoreConversation(parseTranscript(lines.slice(0, secondPrompt + 1).join('\n')).records);
    expect(restored.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: PROMPTS[1] }] });
    expect(restored.awaitsModel).toBe(true);
    expect(restored.turnCount).toBe(3); // the first question took two model calls
    expect(restored.repaired).toEqual([`the prompt "${PROMPTS[1]}" had not reached the history: added`]);
    // Only the header and the first prompt: the first question, asked again.
    const first = restoreConversation(parseTranscript(lines.slice(0, 2).join('\n')).records);
    expect(first).toMatchObject({ messages: [{ role: 'user', content: [{ type: 'text', text: PROMPTS[0] }] }], awaitsModel: true, turnCount: 1, recordedCount: 0 });
  });

  it('a pending prompt joins a history that ends with a user message, and the resume rewrites that message', () => {
    const tools: MessageParam = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] };
    const records = parseTranscript(
      [
        { type: 'session', version: 1, id: 's', cwd: '/w', createdAt: 'x', model: 'm' },
        { type: 'message', at: 'x', index: 0, message: { role: 'user', content: 'go' } },
        { type: 'message', at: 'x', index: 1, message: { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'bash', input: {} }] } },
        { type: 'message', at: 'x', index: 2, message: tools },
        { type: 'prompt', at: 'x', text: 'and more' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    ).records;
    const restored = restoreConversation(records);
    expect(restored.messages[2]).toEqual({ role: 'user', content: [...(tools.content as object[]), { type: 'text', text: 'and more' }] });
    expect(restored.recordedCount).toBe(2); // index 2 is written again by the resume
  });
});

describe('the recorder and the prompt', () => {
  it('writes the header and the first prompt in one write, and a prompt recorded again before its message only once', () => {
    const recorder = startSession(home, { cwd: '/w', model: 'm', prompt: 'hello' }, { durable: false });
    recorder.prompt('hello'); // runAgent records it too: not written again
    recorder.onEvent({ type: 'message', index: 0, message: { role: 'user', content: 'hello' }, origin: 'prompt' });
    recorder.prompt('hello'); // a new question with the same words: written
    recorder.close();
    const types = readTranscript(recorder.path).records.map((r) => r.type);
    expect(types).toEqual(['session', 'prompt', 'message', 'prompt']);
  });

  it('writes a resume, its repair and the new prompt together', () => {
    const recorder = startSession(home, { cwd: '/w', model: 'm', prompt: 'go' }, { durable: false });
    const restored = restoreConversation(readTranscript(recorder.path).records);
    recorder.resumed(restored, 'retry');
    recorder.prompt('retry');
    recorder.close();
    const records = readTranscript(recorder.path).records;
    expect(records.map((r) => r.type)).toEqual(['session', 'prompt', 'resume', 'message', 'prompt']);
    expect(records[2]).toMatchObject({ type: 'resume', messageCount: 0, turnCount: 1 });
    expect(records[3]).toMatchObject({ type: 'message', index: 0, synthetic: true, message: { role: 'user', content: [{ type: 'text', text: 'go' }] } });
    // Cut right after that write: both prompts are asked.
    expect(restoreConversation(records).messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'go' }, { type: 'text', text: 'retry' }] }]);
  });
});
