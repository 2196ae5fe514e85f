// The README's library example, as a test: it imports the package by name, as a user would.
import { mkdtempSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, toPromise } from 'xstate';
import { expect, it } from 'vitest';
import { createAgentMachine, createBashTool, defaultTools, defineTool, reply, runAgent, scriptedModel, toolDefinition } from 'agentloop';
import { z } from 'zod';

it('runs the loop with a scripted model and the real bash tool', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-lib-'));
  writeFileSync(join(dir, 'hello.txt'), 'hi');
  const model = scriptedModel([
    reply.toolUse([{ id: 'toolu_1', name: 'bash', input: { command: 'ls' } }]),
    reply.text('There is one file: hello.txt'),
  ]);

  const run = await runAgent('list the files', { model: 'scripted', modelCall: model.call, cwd: dir, tools: defaultTools({ cwd: dir }) });

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

it('declares a tool in a few lines with zod and gates calls with beforeToolCall, as docs/library.md shows', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentloop-lib-'));
  writeFileSync(join(dir, 'notes.txt'), 'remember the milk');
  const readFile = defineTool({
    name: 'read_file',
    description: 'Read a UTF-8 text file of the working directory.',
    input: z.object({ path: z.string().describe('Relative path'), maxBytes: z.number().int().min(1).optional() }),
    isConcurrencySafe: () => true,                 // read-only: may run beside others, while the reply streams
    run: async ({ path, maxBytes }, { cwd }) => ({ content: (await fs.readFile(join(cwd, path), 'utf8')).slice(0, maxBytes), isError: false }),
  });
  const model = scriptedModel([
    reply.toolUse([
      { id: 'r1', name: 'read_file', input: { path: 'notes.txt', maxBytes: 8 } },
      { id: 'r2', name: 'read_file', input: { path: 42 } },
      { id: 'b1', name: 'bash', input: { command: 'rm notes.txt' } },
    ]),
    reply.text('done'),
  ]);
  const run = await runAgent('read my notes', {
    model: 'scripted',
    modelCall: model.call,
    cwd: dir,
    tools: [readFile, createBashTool()],
    hooks: {
      beforeToolCall: ({ block }) =>
        /\brm\b/.test(String((block.input as { command?: unknown }).command))
          ? { action: 'deny', reason: 'deleting files needs a human here' }
          : undefined,
    },
  });
  expect(run.context.messages[2]?.content).toEqual([
    { type: 'tool_result', tool_use_id: 'r1', content: 'remember' },
    { type: 'tool_result', tool_use_id: 'r2', content: 'Invalid input for read_file: "path": Invalid input: expected string, received number.', is_error: true },
    { type: 'tool_result', tool_use_id: 'b1', content: 'Not run: deleting files needs a human here', is_error: true },
  ]);
  expect(await fs.readFile(join(dir, 'notes.txt'), 'utf8')).toBe('remember the milk');
});
