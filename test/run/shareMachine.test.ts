/**
 * A run's machine shares the state nodes of the agent machine (run/shareMachine.ts): XState's `provide` built the
 * whole machine again for every run, ~20 KB a run held while it lasted (bench/many.ts). Two runs' machines, made with
 * different models and tools, each run with their own (the implementations are looked up through the snapshot's
 * machine), at once, to the same end as before; a snapshot persisted by one restores on it.
 */
import { createActor, toPromise } from 'xstate';
import { describe, expect, it } from 'vitest';
import { toolDefinition } from '../../src/core/tool.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { createAgentMachine } from '../../src/run/actors.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { echoTool } from '../support/drive.js';

function machineFor(name: string) {
  const tool = echoTool({ name });
  const model = scriptedModel([reply.toolUse([{ id: `t-${name}`, name, input: { text: name } }]), reply.text(`done ${name}`)]);
  const machine = createAgentMachine({ model: model.call, tools: [tool], cwd: process.cwd() });
  const input = { messages: [{ role: 'user' as const, content: 'go' }], config: { model: 'test-model', tools: [toolDefinition(tool)], retryBaseMs: 1, maxTurns: 5 } };
  return { machine, input, model };
}

describe('a run’s machine', () => {
  it('shares the agent machine’s state nodes (XState’s provide built them again for every run)', () => {
    const { machine } = machineFor('echo');
    expect(machine.root).toBe(agentMachine.root);
    expect(machine.implementations.actors.callModel).not.toBe(agentMachine.implementations.actors.callModel);
  });

  it('runs with its own model and tools, two at once', async () => {
    const a = machineFor('alpha');
    const b = machineFor('beta');
    const actors = [createActor(a.machine, { input: a.input }), createActor(b.machine, { input: b.input })];
    actors.forEach((actor) => actor.start());
    const [ea, eb] = await Promise.all(actors.map((actor) => toPromise(actor)));
    const last = (output: unknown) => JSON.stringify((output as { messages: unknown[] }).messages.at(-1));
    expect([last(ea), last(eb)]).toEqual([expect.stringContaining('done alpha'), expect.stringContaining('done beta')]);
    const results = (output: unknown) => JSON.stringify((output as { messages: unknown[] }).messages[2]);
    expect(results(ea)).toContain('alpha');
    expect(results(eb)).toContain('beta');
  });

  it('restores a snapshot it persisted, on its own implementations', async () => {
    const a = machineFor('gamma');
    const persisted = createActor(a.machine, { input: a.input }).getPersistedSnapshot();
    const again = createActor(a.machine, { snapshot: persisted, input: a.input });
    expect(again.getSnapshot().machine).toBe(a.machine);
  });
});
