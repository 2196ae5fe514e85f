import { describe, expect, it } from 'vitest';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import type { SessionRecord } from '../../../src/transcript/records.js';
import { runAgent } from '../../../src/run/runAgent.js';
import { type RunEvent } from '../../../src/core/events.js';
import { sequenceDiagram } from '../../../src/view/lesson/sequence.js';
import { machineGraph } from '../../../src/diagram/graph.js';
import { agentMachine } from '../../../src/machine/agentMachine.js';
import { buildTimeline } from '../../../src/view/timeline/build.js';

const graph = machineGraph(agentMachine);
import { echoTool } from '../../support/drive.js';

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
    const timeline = buildTimeline(records, graph);
    expect(timeline.header?.id).toBe('s');
    expect(timeline.steps.map((s) => [s.state, s.turnCount, s.notes])).toEqual([
      ['callingModel', 1, ['prompt: go']],
      ['executingTools', 1, []],
      ['callingModel', 2, ['resumed at turn 2: answered bash t1 as interrupted (not run again)']],
    ]);
    expect(timeline.messages.map((m) => [m.index, m.step, m.synthetic])).toEqual([
      [0, 0, false],
      [1, 1, false],
      [2, 2, true],
    ]);
    expect(timeline.requests).toEqual([expect.objectContaining({ step: 0, turnCount: 1, messageCacheMarks: [[0, 0]] })]);
    expect(timeline.tools).toEqual([{ id: 't1', name: 'bash', step: 0, kind: 'start', at, input: {} }]);
  });
});

describe('the edges and the sentence of each step', () => {
  it('takes the branch a decision record names, and puts the retry on the waitingToRetry step', () => {
    const records = [
      { type: 'session', version: 1, id: 's', cwd: '/w', createdAt: at, model: 'm' },
      { type: 'message', at, index: 0, message: { role: 'user', content: 'hello' }, origin: 'prompt' },
      { type: 'transition', at, state: 'callingModel', event: 'xstate.init', turnCount: 1, transitionReason: null },
      { type: 'request', at, turnCount: 1, messageCount: 1, body: { model: 'm', max_tokens: 1 }, messageCacheMarks: [] },
      { type: 'decision', state: 'checkingError', guard: 'canRetry', target: 'waitingToRetry' },
      { type: 'transition', at, state: 'waitingToRetry', event: 'xstate.error.actor.model', turnCount: 1, transitionReason: null },
      { type: 'retry', at, attempt: 1, delayMs: 500, error: { kind: 'overloaded', message: 'Overloaded', retryable: true } },
      { type: 'transition', at, state: 'callingModel', event: 'xstate.after.retryDelay.agent.waitingToRetry', turnCount: 1, transitionReason: 'retry' },
      { type: 'request', at, turnCount: 1, messageCount: 1, body: { model: 'm', max_tokens: 1 }, messageCacheMarks: [] },
      { type: 'message', at, index: 1, message: { role: 'assistant', content: 'hi' }, origin: 'model' },
      { type: 'decision', state: 'checkingReply', guard: 'else', target: 'done' },
      { type: 'transition', at, state: 'done', event: 'xstate.done.actor.model', turnCount: 1, transitionReason: null, exitReason: 'completed' },
    ] as unknown as SessionRecord[];
    const t = buildTimeline(records, graph);
    expect(t.steps.map((s) => [s.state, s.edges])).toEqual([
      // Each turn begins in the choice checkingContext (compaction, issue 42): its `else` branch leads to callingModel.
      ['callingModel', ['agent.(initial) --> turn', 'turn.(initial) --> turn.checkingContext', 'turn.checkingContext --always--> turn.callingModel']],
      ['waitingToRetry', ['turn.callingModel --error: model--> turn.checkingError', 'turn.checkingError --always [canRetry]--> waitingToRetry']],
      ['callingModel', ['waitingToRetry --after: retryDelay--> turn', 'turn.checkingContext --always--> turn.callingModel']],
      ['done', ['turn.callingModel --done: model--> turn.checkingReply', 'turn.checkingReply --always--> done']],
    ]);
    expect(t.steps[1]?.retry).toEqual({ attempt: 1, delayMs: 500, error: 'Overloaded' });
    expect(t.steps[0]?.retry).toBeUndefined();
    expect(t.requests.map((r) => r.step)).toEqual([0, 2]);
    expect(t.steps.map((s) => s.sentence)).toEqual([
      'The loop sends request 1, state.messages (1 message) and the tool definitions, to the model (turn 1).',
      'The model call failed (Overloaded); it can be retried, so the loop waits 500 ms before attempt 2.',
      'The loop sends request 2, state.messages (1 message) and the tool definitions, to the model (turn 1, transitionReason retry). It carries the same messages as request 1.',
      'The run ends in done (exitReason completed): the loop hands the text of messages[1] to the user (“hi”).',
    ]);
  });

  it('without decision records, tells the branches into done apart by the exit reason', () => {
    const records = [
      { type: 'transition', at, state: 'callingModel', event: 'xstate.init', turnCount: 1, transitionReason: null },
      { type: 'transition', at, state: 'done', event: 'xstate.done.actor.model', turnCount: 1, transitionReason: null },
      { type: 'result', at, state: 'done', exitReason: 'refusal', stopReason: 'refusal', turnCount: 1, usage: {}, turnUsage: [], durationMs: 1 },
    ] as unknown as SessionRecord[];
    const t = buildTimeline(records, graph);
    expect(t.steps[1]?.edges).toEqual(['turn.callingModel --done: model--> turn.checkingReply', 'turn.checkingReply --always [isRefusal]--> done']);
    expect(t.steps[1]?.sentence).toBe('The model refused (stop_reason refusal): the run ends in done (exitReason refusal).');
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
