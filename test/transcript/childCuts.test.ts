/**
 * A session with a subagent cut after any of its lines resumes with the child taken up where it stopped (issue 38): every
 * prefix of a real recorded run (a parent whose Agent call runs a child that calls two tools; and the same one level
 * deeper, a child whose Agent call runs the worker) is resumed as the CLI and the library resume it (restoreConversation,
 * then runAgent with its `cutAgents`). For every cut: each tool's effect happens at most once over both runs (a tool
 * whose start was recorded is never run again), exactly once unless the child's reply that asked for it was recorded
 * and its start was not (answered as interrupted, as resume.ts answers any), the run ends with the parent's answer,
 * every request's history is valid, and the parent's last request carries the child's answer, not "interrupted": an
 * Agent call cut before its child started runs its child at resume, as one cut midway goes on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDefinitions } from '../../src/core/agents.js';
import type { ContentBlock, MessageParam } from '../../src/core/messages.js';
import type { ModelRequest } from '../../src/core/model.js';
import type { Tool } from '../../src/core/tool.js';
import { historyProblems } from '../../src/history/validate.js';
import { reply, scriptedModel, type ScriptedReply } from '../../src/scripted/model.js';
import { resumeSession } from '../../src/transcript/open.js';
import { startSession } from '../../src/transcript/recorder.js';
import { readTranscript } from '../../src/transcript/store.js';
import { runAgent } from '../../src/run/runAgent.js';
import { INTERRUPTED_TOOL_RESULT } from '../../src/transcript/resume.js';

let home: string;
beforeAll(() => void (home = mkdtempSync(join(tmpdir(), 'agentloop-childcuts-'))));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const AGENTS: AgentDefinitions = {
  outer: { description: 'Delegates', prompt: 'You delegate.', tools: ['Agent', 'note'] },
  worker: { description: 'Works', prompt: 'You work.', tools: ['note'] },
};
const call = (id: string, type: string) => ({ id, name: 'Agent', input: { description: `Task ${id}`, prompt: `Do ${id}`, subagent_type: type } });

/** A tool whose every run is an effect, written in `log`. */
function noteTool(log: string[]): Tool {
  return {
    name: 'note',
    description: 'Notes its id',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    isConcurrencySafe: () => false,
    run: async (input) => {
      log.push((input as { id: string }).id);
      return { isError: false, content: 'noted' };
    },
  };
}

/** The model of every run: by the system prompt (whose) and the replies so far (where it is), the same answer each time. */
function decide(nested: boolean) {
  return (request: ModelRequest): ScriptedReply => {
    const system = JSON.stringify(request.system ?? '');
    const step = request.messages.filter((m: MessageParam) => m.role === 'assistant').length;
    if (system.includes('You work.')) return [reply.toolUse([{ id: 'c1', name: 'note', input: { id: 'c1' } }]), reply.toolUse([{ id: 'c2', name: 'note', input: { id: 'c2' } }])][step] ?? reply.text('Child done.');
    if (system.includes('You delegate.')) return step === 0 ? reply.toolUse([call('b1', 'worker')]) : reply.text(`Outer: ${lastResultText(request)}`);
    return step === 0 ? reply.toolUse([call('a1', nested ? 'outer' : 'worker')]) : reply.text('Parent done.');
  };
}

function lastResultText(request: ModelRequest): string {
  const last = request.messages.at(-1)?.content;
  const block = Array.isArray(last) ? (last as ContentBlock[]).find((b) => b.type === 'tool_result') : undefined;
  const content = block?.type === 'tool_result' ? block.content : '';
  return typeof content === 'string' ? content : (content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('\n');
}

function runOf(nested: boolean, log: string[], requests: ModelRequest[]) {
  const model = scriptedModel(Array.from({ length: 40 }, () => decide(nested)));
  const modelCall: typeof model.call = (input, signal) => (requests.push(input.request), model.call(input, signal));
  return { model: 'm', modelCall, tools: [noteTool(log)], agents: AGENTS, cwd: home };
}

/** The lines of a whole run of the session. */
async function recorded(nested: boolean): Promise<string[]> {
  const recorder = startSession(home, { cwd: home, model: 'm', prompt: 'go' }, { durable: false });
  const result = await runAgent('go', { ...runOf(nested, [], []), onEvent: recorder.onEvent });
  recorder.finish(result);
  recorder.close();
  return readTranscript(recorder.path).records.map((r) => JSON.stringify(r));
}

describe.each([false, true])('a session with a subagent (nested: %s), cut after any line, resumed', (nested) => {
  it('runs each tool at most once, ends with the answer, keeps every history valid, and gives the parent the child\'s answer', async () => {
    const lines = await recorded(nested);
    for (let cut = 1; cut <= lines.length; cut += 1) {
      const prefix = lines.slice(0, cut);
      const path = join(home, 'sessions', `cut${nested ? 'n' : ''}${cut}.jsonl`);
      writeFileSync(path, `${prefix.join('\n')}\n`);
      const started = prefix.flatMap((l) => [...l.matchAll(/"type":"tool_start","block":\{"type":"tool_use","id":"(c\d)"/g)].map((m) => m[1]));
      const log: string[] = [];
      const requests: ModelRequest[] = [];
      const resumed = await resumeSession(path);
      const { conversation } = resumed;
      const prompt = conversation.awaitsModel ? null : 'go on';
      const run = await runAgent(prompt, { ...runOf(nested, log, requests), messages: conversation.messages, turnCount: conversation.turnCount, cutAgents: conversation.cutAgents, session: resumed.recorder });
      resumed.recorder.close();
      const where = `cut after line ${cut}: ${prefix.at(-1)?.slice(0, 120)}`;
      expect(run.state, where).toBe('done');
      expect(run.text, where).toBe('Parent done.');
      // A tool the model asked for and whose start was not recorded is answered as interrupted, as resume.ts answers
      // any; an Agent call cut before its child started runs its child (nothing of it had run).
      const asked = (id: string) => prefix.some((l) => l.includes(`"type":"tool_use","id":"${id}"`));
      for (const id of ['c1', 'c2']) {
        const times = started.includes(id) ? 1 : asked(id) ? 0 : 1;
        expect(started.filter((s) => s === id).length + log.filter((l) => l === id).length, `${where}: ${id}`).toBe(times);
      }
      for (const request of requests) expect(historyProblems(request.messages), where).toEqual([]);
      expect(JSON.stringify(requests.at(-1)?.messages), where).toContain(nested ? 'Outer: Child done.' : 'Child done.');
      expect(JSON.stringify(requests.at(-1)?.messages), where).not.toContain(INTERRUPTED_TOOL_RESULT.slice(0, 40));
    }
  });
});

describe('an Agent call cut before its child started', () => {
  it('is taken up with no start record, said so, and run as the machine runs a call: its child from its prompt, the gate judging it again', async () => {
    const lines = await recorded(false);
    const at = lines.findIndex((l) => l.includes('"type":"tool_start"') && l.includes('"id":"a1"'));
    expect(lines.slice(0, at + 1).some((l) => l.includes('"type":"agent_start"'))).toBe(false);
    const path = join(home, 'sessions', 'unstarted.jsonl');
    writeFileSync(path, `${lines.slice(0, at + 1).join('\n')}\n`);
    const resumed = await resumeSession(path);
    const { conversation } = resumed;
    expect(conversation.cutAgents).toEqual([{ toolUseId: 'a1', start: undefined, end: undefined, records: [] }]);
    expect(conversation.repaired).toContain('Agent a1 was cut before its subagent started: it runs now (answered as interrupted if it cannot)');
    resumed.recorder.close();

    // The gate denies it this time: its child never runs, the call gets the denial.
    const log: string[] = [];
    const requests: ModelRequest[] = [];
    const run = await runAgent(null, { ...runOf(false, log, requests), permissions: { mode: 'default', deny: ['Agent'] }, messages: conversation.messages, turnCount: conversation.turnCount, cutAgents: conversation.cutAgents });
    expect(run.text).toBe('Parent done.');
    expect(log).toEqual([]);
    expect(requests.map((r) => JSON.stringify(r.system ?? ''))).not.toContainEqual(expect.stringContaining('You work.'));
    const asked = JSON.stringify(requests.map((r) => r.messages));
    expect(asked).toContain('"content":"Not run: denied by rule Agent","is_error":true');
    expect(asked).not.toContain(INTERRUPTED_TOOL_RESULT.slice(0, 40));

    // In a run without agents, it cannot run: the call stays answered as interrupted.
    const bareRequests: ModelRequest[] = [];
    const bare = await runAgent(null, { ...runOf(false, log, bareRequests), agents: {}, messages: conversation.messages, turnCount: conversation.turnCount, cutAgents: conversation.cutAgents });
    expect(bare.text).toBe('Parent done.');
    expect(JSON.stringify(bareRequests.map((r) => r.messages))).toContain(INTERRUPTED_TOOL_RESULT.slice(0, 40));
    expect(log).toEqual([]);
  });
});
