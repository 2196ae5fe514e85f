import { describe, expect, it } from 'vitest';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import type { SessionRecord } from '../../src/session/records.js';
import { runAgent, type RunEvent } from '../../src/session/run.js';
import { sequenceDiagram } from '../../src/view/sequence.js';
import { buildTimeline } from '../../src/view/timeline.js';
import { echoTool } from '../support/drive.js';

const at = '2026-01-01T00:00:00.000Z';

describe('the timeline', () => {
  it('ties messages and requests to the step they lead to, tools and results to the step they happen in', () => {
    const records: SessionRecord[] = [
      { type: 'session', version: 1, id: 's', cwd: '/w', createdAt: at, model: 'm' },
      { type: 'prompt', at, text: 'go' },
      { type: 'request', at, turnCount: 1, messageCount: 1, body: { model: 'm', max_tokens: 1 }, messageCacheMarks: [[0, 0]] },
      { type: 'message', at, index: 0, message: { role: 'user', content: 'go' } },
      { type: 'transition', at, state: 'callingModel', event: 'xstate.init', turnCount: 1, transitionReason: null },
      { type: 'tool_start', at, block: { type: 'tool_use', id: 't1', name: 'bash', input: {} } },
      { type: 'message', at, index: 1, message: { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'bash', input: {} }] } },
      { type: 'transition', at, state: 'executingTools', event: 'xstate.done.actor.model', turnCount: 1, transitionReason: null },
      { type: 'resume', at, turnCount: 2, repaired: ['answered bash t1 as interrupted (not run again)'] },
      { type: 'message', at, index: 2, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] }, synthetic: true },
      { type: 'transition', at, state: 'callingModel', event: 'xstate.init', turnCount: 2, transitionReason: null },
      { type: 'retry', at, attempt: 1, delayMs: 500, error: 'overloaded' },
    ];
    const timeline = buildTimeline(records);
    expect(timeline.header?.id).toBe('s');
    expect(timeline.steps.map((s) => [s.state, s.turnCount, s.notes])).toEqual([
      ['callingModel', 1, ['prompt: go']],
      ['executingTools', 1, []],
      ['callingModel', 2, ['resumed at turn 2: answered bash t1 as interrupted (not run again)', 'retry 1 in 500 ms: overloaded']],
    ]);
    expect(timeline.messages.map((m) => [m.index, m.step, m.synthetic])).toEqual([
      [0, 0, false],
      [1, 1, false],
      [2, 2, true],
    ]);
    expect(timeline.requests).toEqual([expect.objectContaining({ step: 0, turnCount: 1, messageCacheMarks: [[0, 0]] })]);
    expect(timeline.tools).toEqual([{ id: 't1', name: 'bash', step: 0, kind: 'start' }]);
  });
});

describe('the sequence diagram of a run', () => {
  it('follows the run: prompt, state notes, requests, tool call and result, answer', async () => {
    const events: RunEvent[] = [];
    const model = scriptedModel([reply.toolUse([{ id: 't1', name: 'echo', input: { text: 'a;b#c' } }]), reply.text('All done.')]);
    await runAgent('Echo it.', { model: 'm', modelCall: model.call, tools: [echoTool()], onEvent: (e) => events.push(e) });
    const diagram = sequenceDiagram(events, { prompt: 'Echo it.' });
    const lines = diagram.trim().split('\n');
    expect(lines[0]).toBe('sequenceDiagram');
    expect(lines).toContain('  US->>AL: Echo it.');
    expect(lines).toContain('  Note over ST: callingModel · turnCount 2 · transitionReason tool_result');
    expect(lines).toContain('  AL->>MD: POST /v1/messages · turn 2 · 3 messages');
    expect(lines.at(-1)).toBe('  AL-->>US: All done.');
    // `;` and `#` would end or break a Mermaid statement.
    expect(diagram).toContain('a#59;b#35;c');
    expect(diagram.replace(/#\d+;/g, '')).not.toMatch(/[;#]/);
  });
});
