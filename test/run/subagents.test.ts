/**
 * Subagents in the library (`runAgent(…, { agents })`): the Agent tool runs the agent as a child of the run (its own
 * request, system prompt, tools, model and history), its answer is the call's result, several run at once, an abort
 * of the parent aborts them, the parent's permission gate judges the child's calls, and every child event reaches the
 * parent's listener wrapped.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import type { ModelCall, ModelRequest } from '../../src/core/model.js';
import { historyProblems } from '../../src/history/validate.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { runAgent } from '../../src/run/runAgent.js';
import { echoTool } from '../support/drive.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentRecords, agentStarts } from '../../src/transcript/agentRecords.js';
import { restoreConversation } from '../../src/transcript/resume.js';
import { findSession, readTranscript } from '../../src/transcript/store.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { graphOf } from '../../src/view/server/assets.js';
import { buildTimeline } from '../../src/view/timeline/build.js';

const agentCall = (id: string, prompt: string, type = 'reviewer') => ({ id, name: 'Agent', input: { description: `Task ${id}`, prompt, subagent_type: type } });
const toolNames = (request: ModelRequest | undefined) => (request?.tools ?? []).map((t) => t.name);
const resultOf = (request: ModelRequest | undefined, id: string) =>
  request?.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b) => b.type === 'tool_result' && b.tool_use_id === id);

describe('runAgent({ agents })', () => {
  it("runs the agent as a child: its own request, system prompt and tools; its answer is the parent's tool result", async () => {
    const parent = scriptedModel([reply.toolUse([agentCall('p1', 'Review notes.md')], 'Asking.'), reply.text('It is fine.')]);
    const child = scriptedModel([reply.toolUse([{ id: 'c1', name: 'echo', input: { text: 'notes' } }]), reply.text('Looks good.', { input_tokens: 10, output_tokens: 5 })]);
    const events: RunEvent[] = [];
    const run = await runAgent('review', {
      model: 'parent-model',
      modelCall: parent.call,
      tools: [echoTool(), echoTool({ name: 'other' })],
      agents: { reviewer: { description: 'Reviews a file', prompt: 'You review files.', tools: ['echo'], model: 'haiku', modelCall: child.call } },
      onEvent: (e) => events.push(e),
    });
    expect(run.state).toBe('done');
    expect(run.text).toBe('It is fine.');
    // The parent is offered the Agent tool, its description listing the agent.
    expect(toolNames(parent.requests[0])).toEqual(['echo', 'other', 'Agent']);
    expect(parent.requests[0]?.tools?.find((t) => t.name === 'Agent')?.description).toContain('- reviewer: Reviews a file (Tools: echo)');
    // The child: its own request, its system prompt, only its tools, its model, its prompt as its only message.
    expect(child.requests[0]?.model).toBe('claude-haiku-5-5');
    expect(String(child.requests[0]?.system)).toMatch(/^You review files\./);
    expect(toolNames(child.requests[0])).toEqual(['echo']);
    expect(child.requests[0]?.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Review notes.md' }] }]);
    expect(child.requests).toHaveLength(2);
    // The parent's next request carries the child's answer and its id line as the result.
    const result = resultOf(parent.requests[1], 'p1') as { content: { text: string }[] };
    expect(result.content[0]?.text).toBe('Looks good.');
    expect(result.content[1]?.text).toMatch(/^agentId: a[0-9a-f]{16}\n<usage>subagent_tokens: 15\ntool_uses: 1\nduration_ms: \d+<\/usage>$/);
    expect(historyProblems(run.context.messages)).toEqual([]);
    expect(run.context.turnCount).toBe(2);
    // The child's events reach the parent's listener, wrapped, between its start and its end.
    const kinds = events.filter((e) => e.type.startsWith('agent_')).map((e) => (e.type === 'agent_event' ? `child:${e.event.type}` : e.type));
    expect(kinds[0]).toBe('agent_start');
    expect(kinds.at(-1)).toBe('agent_end');
    expect(kinds).toContain('child:tool_start');
    expect(kinds.filter((k) => k === 'child:request')).toHaveLength(2);
    const end = events.find((e) => e.type === 'agent_end');
    expect(end).toMatchObject({ toolUseId: 'p1', agentType: 'reviewer', state: 'done', text: 'Looks good.', toolUses: 1 });
    const data = events.find((e) => e.type === 'tool_result' && e.block.id === 'p1') as { data: unknown };
    expect(data.data).toMatchObject({ status: 'completed', prompt: 'Review notes.md', agentType: 'reviewer', content: [{ type: 'text', text: 'Looks good.' }], totalToolUseCount: 1 });
  });

  it('runs the children of one reply at once', async () => {
    let waiting = 0;
    let release: () => void = () => {};
    const together = new Promise<void>((resolve) => (release = resolve));
    // Each child's first request waits until both are asking: with one at a time, the run would never end.
    const child: ModelCall = async (...args) => {
      waiting += 1;
      if (waiting === 2) release();
      await together;
      const text = args[0].request.messages[0]?.content;
      return { content: [{ type: 'text' as const, text: `done: ${JSON.stringify(text).includes('first') ? 'first' : 'second'}` }], stopReason: 'end_turn' as const, usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, droppedIncompleteBlock: false };
    };
    const parent = scriptedModel([reply.toolUse([agentCall('p1', 'the first'), agentCall('p2', 'the second')]), reply.text('Both done.')]);
    const run = await runAgent('two', { model: 'm', modelCall: parent.call, tools: [], agents: { reviewer: { description: 'd', prompt: 'p', modelCall: child } } });
    expect(run.state).toBe('done');
    expect((resultOf(parent.requests[1], 'p1') as { content: { text: string }[] }).content[0]?.text).toBe('done: first');
    expect((resultOf(parent.requests[1], 'p2') as { content: { text: string }[] }).content[0]?.text).toBe('done: second');
  });

  it("aborting the parent aborts the child mid-call; both histories stay valid", async () => {
    const controller = new AbortController();
    const parent = scriptedModel([reply.toolUse([agentCall('p1', 'wait')])]);
    const events: RunEvent[] = [];
    const child = scriptedModel([reply.text('never')], { delayMs: 60_000 });
    const run = await runAgent('go', {
      model: 'm',
      modelCall: parent.call,
      tools: [],
      agents: { reviewer: { description: 'd', prompt: 'p', modelCall: child.call } },
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'agent_event' && e.event.type === 'request') controller.abort();
      },
    });
    expect(run.state).toBe('aborted');
    expect(historyProblems(run.context.messages)).toEqual([]);
    expect(events.find((e) => e.type === 'agent_end')).toMatchObject({ state: 'aborted' });
  });

  it("an agent with no tool list gets the parent's, Agent among them (Claude Code nests); one with a list gets only those", async () => {
    const parent = scriptedModel([reply.toolUse([agentCall('p1', 'a', 'open'), agentCall('p2', 'b', 'narrow')]), reply.text('ok')]);
    const open = scriptedModel([reply.text('open done')]);
    const narrow = scriptedModel([reply.text('narrow done')]);
    await runAgent('go', {
      model: 'm',
      modelCall: parent.call,
      tools: [echoTool()],
      agents: { open: { description: 'o', prompt: 'p', modelCall: open.call }, narrow: { description: 'n', prompt: 'p', tools: ['echo', 'Agent'], disallowedTools: ['Agent'], modelCall: narrow.call } },
    });
    expect(toolNames(open.requests[0])).toEqual(['echo', 'Agent']);
    expect(toolNames(narrow.requests[0])).toEqual(['echo']);
  });

  it("a subagent_type that names no agent is answered with the agents there are; the parent's gate judges the child's calls", async () => {
    const parent = scriptedModel([reply.toolUse([agentCall('p1', 'a', 'nobody'), agentCall('p2', 'b')]), reply.text('ok')]);
    const child = scriptedModel([reply.toolUse([{ id: 'c1', name: 'echo', input: { text: 'x' } }]), reply.text('denied, fine')]);
    const events: RunEvent[] = [];
    await runAgent('go', {
      model: 'm',
      modelCall: parent.call,
      tools: [echoTool()],
      permissions: { mode: 'default', deny: ['echo'] },
      agents: { reviewer: { description: 'd', prompt: 'p', modelCall: child.call } },
      onEvent: (e) => events.push(e),
    });
    expect(JSON.stringify(resultOf(parent.requests[1], 'p1'))).toContain("Agent type 'nobody' not found. Available agents: reviewer");
    expect(JSON.stringify(resultOf(child.requests[1], 'c1'))).toContain('Not run');
    expect(events.some((e) => e.type === 'agent_event' && e.event.type === 'permission_denied')).toBe(true);
  });

  it("the transcript keeps the child's run: its records read back as its own conversation, the parent's as before", async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentloop-subagents-'));
    try {
      const parent = scriptedModel([reply.toolUse([agentCall('p1', 'Review notes.md')]), reply.text('Fine.')]);
      const child = scriptedModel([reply.toolUse([{ id: 'c1', name: 'echo', input: { text: 'notes' } }]), reply.text('Looks good.')]);
      let childMessages: unknown;
      const run = await runAgent('review', {
        model: 'm',
        modelCall: parent.call,
        tools: [echoTool()],
        agents: { reviewer: { description: 'Reviews', prompt: 'You review.', modelCall: child.call } },
        session: { home },
        cwd: home,
        onEvent: (e) => {
          if (e.type === 'agent_event' && e.event.type === 'message') childMessages = e.event.index;
        },
      });
      const transcript = readTranscript(findSession(home, run.sessionId));
      expect(transcript.problems).toEqual([]);
      expect(restoreConversation(transcript.records).messages).toEqual(run.context.messages);
      const [start] = agentStarts(transcript.records);
      expect(start).toMatchObject({ toolUseId: 'p1', agentType: 'reviewer', prompt: 'Review notes.md' });
      const mine = agentRecords(transcript.records, start!.agentId);
      expect(mine.map((r) => r.type)).toContain('tool_start');
      const restored = restoreConversation(mine);
      expect(restored.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(restored.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Review notes.md' }] });
      expect(childMessages).toBe(3);
      expect(transcript.records.find((r) => r.type === 'agent_end')).toMatchObject({ state: 'done', text: 'Looks good.', toolUses: 1 });
      // The viewer's timeline of the session is the parent's run: the child's records do not join its steps.
      expect(buildTimeline(transcript.records, graphOf(agentMachine)).steps.filter((step) => step.state === 'callingModel')).toHaveLength(2);
      expect(buildTimeline(mine, graphOf(agentMachine)).steps.filter((step) => step.state === 'callingModel')).toHaveLength(2);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
