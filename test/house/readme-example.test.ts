// The README's library example, as a test: it imports the package by name, as a user would.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, toPromise } from 'xstate';
import { expect, it } from 'vitest';
import { createAgentMachine, createBashTool, reply, runAgent, scriptedModel, toolDefinition } from 'agentloop';

it('runs the loop with a scripted model and the real bash tool', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-lib-'));
  writeFileSync(join(dir, 'hello.txt'), 'hi');
  const model = scriptedModel([
    reply.toolUse([{ id: 'toolu_1', name: 'bash', input: { command: 'ls' } }]),
    reply.text('There is one file: hello.txt'),
  ]);

  const run = await runAgent('list the files', { model: 'scripted', modelCall: model.call, cwd: dir });

  expect(run.context.exitReason).toBe('completed');
  expect(run.context.turnCount).toBe(2);
  // The second request carried the real output of `ls` back, bound to its tool_use id.
  expect(model.requests[1]?.messages[2]).toMatchObject({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hello.txt' }],
  });
});

it('embeds the machine in your own actor', async () => {
  const bash = createBashTool();
  const model = scriptedModel([reply.text('hello')]);
  const machine = createAgentMachine({ model: model.call, tools: [bash], cwd: process.cwd() });
  const actor = createActor(machine, {
    input: { messages: [{ role: 'user', content: 'hi' }], config: { model: 'scripted', tools: [toolDefinition(bash)] } },
  });
  actor.start();
  const context = await toPromise(actor);
  expect(context.messages.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'hello' }] });
});
