/**
 * A session with a subagent cut after any of its lines resumes with the child taken up where it stopped (issue 38): every
 * prefix of a real recorded run (a parent whose Agent call runs a child that calls two tools; and the same one level
 * deeper, a child whose Agent call runs the worker) is resumed as the CLI and the library resume it (restoreConversation,
 * then runAgent with its `cutAgents`). For every cut: each tool's effect happens at most once over both runs (a tool
 * whose start was recorded is never run again), exactly once unless an Agent call was cut before its child started, the run ends with the parent's answer, every request's history is
 * valid, and once the child had started, the parent's last request carries the child's answer, not "interrupted" (an
 * Agent call cut before its child started is a cut tool like any other: interrupted, not run again).
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
      // A call the model asked for and whose result was not recorded is answered as interrupted, as resume.ts answers
      // any: an Agent call cut before its child started too (its child never runs), a tool cut before it started.
      const asked = (id: string) => prefix.some((l) => l.includes(`"type":"tool_use","id":"${id}"`));
      const childStarted = (id: string) => prefix.some((l) => l.includes('"type":"agent_start"') && l.includes(`"toolUseId":"${id}"`));
      const childless = (asked('a1') && !childStarted('a1')) || (nested && asked('b1') && !childStarted('b1'));
      for (const id of ['c1', 'c2']) {
        const times = started.includes(id) ? 1 : childless || asked(id) ? 0 : 1;
        expect(started.filter((s) => s === id).length + log.filter((l) => l === id).length, `${where}: ${id}`).toBe(times);
      }
      for (const request of requests) expect(historyProblems(request.messages), where).toEqual([]);
      const answer = nested ? (childStarted('b1') ? 'Outer: Child done.' : 'Outer: ') : 'Child done.';
      if (childStarted('a1')) expect(JSON.stringify(requests.at(-1)?.messages), where).toContain(answer);
    }
  });
});
