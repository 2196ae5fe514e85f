/**
 * A subagent's timeline (src/view/timeline/agents.ts): the session's timeline is its parent's run, with each child the
 * run started as a timeline of its own (keyed by the Agent call), a nested child inside its parent's; a session
 * without children has no `agents`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../../src/machine/agentMachine.js';
import { runAgent } from '../../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import { findSession, readTranscript } from '../../../src/transcript/store.js';
import { graphOf } from '../../../src/view/server/assets.js';
import { runTimeline } from '../../../src/view/timeline/agents.js';
import { echoTool } from '../../support/drive.js';

const agentCall = (id: string, type: string) => ({ id, name: 'Agent', input: { description: `Task ${id}`, prompt: `Do ${id}`, subagent_type: type } });
const calls = (steps: Array<{ state: string }>) => steps.filter((s) => s.state === 'callingModel').length;

describe('runTimeline', () => {
  it("gives each child its own timeline under the Agent call that started it, a grandchild under its parent's", async () => {
    const home = mkdtempSync(join(tmpdir(), 'agentloop-agenttimeline-'));
    try {
      const parent = scriptedModel([reply.toolUse([agentCall('p1', 'outer')]), reply.text('all done')]);
      const outer = scriptedModel([reply.toolUse([agentCall('o1', 'inner')]), reply.text('outer done')]);
      const inner = scriptedModel([reply.toolUse([{ id: 'i1', name: 'echo', input: { text: 'deep' } }]), reply.text('inner done')]);
      const run = await runAgent('go', {
        model: 'm',
        modelCall: parent.call,
        tools: [echoTool()],
        session: { home },
        cwd: home,
        agents: { outer: { description: 'Outer', prompt: 'p', modelCall: outer.call }, inner: { description: 'Inner', prompt: 'p', modelCall: inner.call } },
      });
      const t = runTimeline(readTranscript(findSession(home, run.sessionId)).records, graphOf(agentMachine));
      expect(calls(t.steps)).toBe(2);
      expect(t.agents?.map((a) => ({ id: a.toolUseId, type: a.agentType, state: a.state }))).toEqual([{ id: 'p1', type: 'outer', state: 'done' }]);
      const child = t.agents?.[0]?.timeline;
      expect(calls(child?.steps ?? [])).toBe(2);
      expect(child?.messages[0]?.message).toEqual({ role: 'user', content: [{ type: 'text', text: 'Do p1' }] });
      expect(child?.tools.filter((x) => x.kind === 'start').map((x) => x.id)).toEqual(['o1']);
      const grandchild = child?.agents?.[0];
      expect(grandchild).toMatchObject({ toolUseId: 'o1', agentType: 'inner', state: 'done' });
      expect(grandchild?.timeline.tools.filter((x) => x.kind === 'start').map((x) => x.id)).toEqual(['i1']);
      expect(grandchild?.timeline.agents).toBeUndefined();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
