/**
 * The viewer shows a compaction boundary as a step (issue 42): the `compacting` step, named by the lesson's production
 * layer, carries the boundary (what stays in the state, the transcript, against what is sent from then on); the
 * history shown before it is the whole one, after it the summary and what was kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machineGraph } from '../../../src/diagram/graph.js';
import { agentMachine } from '../../../src/machine/agentMachine.js';
import { runAgent } from '../../../src/run/runAgent.js';
import { ModelError } from '../../../src/core/model.js';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import { findSession, readTranscript } from '../../../src/transcript/store.js';
import { messagesAt, requestMessages } from '../../../src/view/timeline/history.js';
import { buildTimeline } from '../../../src/view/timeline/build.js';
import { echoTool } from '../../support/drive.js';

const graph = machineGraph(agentMachine);

describe('the viewer: a compaction boundary', () => {
  it('is a step of its own, with what is kept and what is sent, and the history after it is the compacted one', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentloop-viewcompact-'));
    try {
      const tooLong = { error: new ModelError('prompt_too_long', 'prompt is too long: 9000 tokens > 8000 maximum', { status: 400 }) };
      const model = scriptedModel([reply.toolUse([{ id: 'toolu_1', name: 'echo', input: { text: 'x' } }]), tooLong, reply.text('done')], { summary: '<summary>echoed x</summary>' });
      const run = await runAgent('echo x', { model: 'scripted', modelCall: model.call, tools: [echoTool()], session: { home } });
      expect(run.context.exitReason).toBe('completed');
      const t = buildTimeline(readTranscript(findSession(home, run.sessionId)).records, graph);
      const at = t.steps.findIndex((s) => s.state === 'compacting');
      expect(at).toBeGreaterThan(0);
      const step = t.steps[at];
      expect(step?.lesson.title).toEqual({ key: 'title.compacting', params: {} });
      expect(step?.edges).toEqual(['turn.callingModel --error: model--> turn.checkingError', 'turn.checkingError --always [canCompactAfterRefusal]--> turn.compacting']);
      expect(t.boundaries).toEqual([expect.objectContaining({ step: at, trigger: 'prompt_too_long', kind: 'summary', messagesBefore: 3, summary: 'echoed x' })]);
      // State vs what is sent: up to the boundary the whole history; from the next step on the compacted one.
      expect(messagesAt(t, at).map((m) => m.message.role)).toEqual(['user', 'assistant', 'user']);
      const after = messagesAt(t, at + 1);
      expect(JSON.stringify(after[0]?.message)).toContain('echoed x');
      const last = t.requests.at(-1);
      expect(last && JSON.stringify(requestMessages(t, last)[0]?.message)).toContain('echoed x');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
