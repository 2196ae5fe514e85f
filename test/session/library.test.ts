/** A library run saved as a session: resumable and viewable like a CLI run. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { restoreConversation } from '../../src/session/resume.js';
import { runAgent } from '../../src/session/run.js';
import { findSession, listSessions, readTranscript } from '../../src/session/store.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { graphOf } from '../../src/view/assets.js';
import { buildTimeline } from '../../src/view/timeline.js';
import { echoTool } from '../support/drive.js';

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
