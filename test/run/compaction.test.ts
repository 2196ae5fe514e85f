/**
 * Compaction for a library user (issue 42): an agent whose tool prints more than the window holds, tested with the
 * scripted model past a window of its own, finishes; its session resumes from the boundary; `compactConversation`
 * compacts by hand, the PreCompact hook (`beforeCompact`) adding its instructions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compactConversation } from '../../src/run/compactConversation.js';
import { runAgent } from '../../src/run/runAgent.js';
import { isCompactRequest } from '../../src/history/compact.js';
import { jsonTokens } from '../../src/history/tokens.js';
import { historyProblems } from '../../src/history/validate.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { resumeSession } from '../../src/transcript/open.js';
import { findSession, readTranscript } from '../../src/transcript/store.js';
import { print, PRINT_WINDOW, printUses } from '../support/compaction.js';

const uses = printUses();
let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

describe('compaction in runAgent', () => {
  it('runs an agent past the window with the scripted model, and its session resumes from the boundary', async () => {
    home = mkdtempSync(join(tmpdir(), 'agentloop-compact-'));
    const model = scriptedModel([...uses, reply.text('printed')], { contextWindow: PRINT_WINDOW });
    const run = await runAgent('print five chunks', { model: 'scripted', modelCall: model.call, tools: [print], contextWindow: PRINT_WINDOW, session: { home } });
    expect(run.context.exitReason).toBe('completed');
    expect(run.text).toBe('printed');
    expect(model.requests.filter(isCompactRequest).length).toBeGreaterThan(0);
    for (const request of model.requests) {
      expect(jsonTokens(request.system) + jsonTokens(request.tools) + jsonTokens(request.messages)).toBeLessThanOrEqual(PRINT_WINDOW);
      expect(historyProblems(request.messages)).toEqual([]);
    }
    const records = readTranscript(findSession(home, run.sessionId)).records;
    const boundaries = records.filter((r) => r.type === 'compact_boundary');
    expect(boundaries.length).toBeGreaterThan(0);
    // The transcript keeps everything before the boundary: every chunk's result is in it.
    expect(records.filter((r) => r.type === 'tool_result')).toHaveLength(5);
    const resumed = await resumeSession(findSession(home, run.sessionId));
    try {
      expect(resumed.conversation.messages).toEqual(run.context.messages);
      expect(JSON.stringify(resumed.conversation.messages[0])).toContain('This session is being continued');
    } finally {
      resumed.recorder.close();
    }
  });

  it("with compaction 'off', a request past the window ends the run with prompt_too_long", async () => {
    const model = scriptedModel([...uses, reply.text('printed')], { contextWindow: PRINT_WINDOW });
    const run = await runAgent('print five chunks', { model: 'scripted', modelCall: model.call, tools: [print], compaction: 'off' });
    expect(run.context.exitReason).toBe('prompt_too_long');
  });
});

describe('compactConversation', () => {
  it('compacts a history by hand, with the instructions of the caller and of the PreCompact hook', async () => {
    const model = scriptedModel([], { summary: '<analysis>a</analysis><summary>the numbers were 1, 2, 3</summary>' });
    const told: unknown[] = [];
    const messages = [
      { role: 'user' as const, content: 'count to three' },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: '1, 2, 3' }] },
    ];
    const boundary = await compactConversation(messages, {
      model: 'scripted',
      modelCall: model.call,
      instructions: 'keep the numbers',
      hooks: { beforeCompact: (info) => (told.push(info), { instructions: 'and the order' }) },
    });
    expect(told).toEqual([{ trigger: 'manual', instructions: 'keep the numbers' }]);
    const prompt = JSON.stringify(model.requests[0]?.messages.at(-1));
    expect(prompt).toContain('keep the numbers');
    expect(prompt).toContain('and the order');
    expect(boundary).toMatchObject({ trigger: 'manual', kind: 'summary', summary: 'the numbers were 1, 2, 3', messagesBefore: 2 });
    expect(historyProblems(boundary.messages)).toEqual([]);
  });
});
