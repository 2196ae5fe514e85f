/**
 * `defineTool` takes any Standard Schema: zod 4 and ArkType here. What the model gets is the JSON Schema the
 * library's own converter writes (never the library's internals), the input is checked with the library's own
 * `validate` (a bad one answered with an `is_error` result naming the field, `run` never called), and `run` gets the
 * value the library makes (defaults applied). Through the real SDK to the local Messages API server.
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { type } from 'arktype';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAnthropicModel } from '../../src/anthropic/call.js';
import { runAgent } from '../../src/run/runAgent.js';
import { defineTool } from '../../src/tools/define.js';
import { s } from '../../src/tools/schema.js';
import { lastToolResults } from '../support/agentServer.js';
import type { MessagesServer } from '../support/messagesServer.js';
import { cliProjectPerTest } from '../support/project.js';

let server: MessagesServer;
let dir: string;
cliProjectPerTest('define', (project) => ({ server, dir } = project));

const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, id, name, input });

describe('defineTool with Standard Schema libraries', () => {
  it('sends the JSON Schema zod and ArkType write, checks the input with them, and runs on their values', async () => {
    const calls: unknown[] = [];
    const repeat = defineTool({
      name: 'repeat',
      description: 'Repeats a word.',
      input: z.object({ word: z.string().min(1).describe('The word'), times: z.number().int().min(1).default(2) }),
      isConcurrencySafe: () => true,
      run: async ({ word, times }) => {
        calls.push({ word, times });
        return { content: word.repeat(times), isError: false };
      },
    });
    const add = defineTool({
      name: 'add',
      description: 'Adds two numbers.',
      input: type({ a: 'number', b: 'number' }),
      run: async ({ a, b }) => ({ content: String(a + b), isError: false }),
    });
    server.enqueue(
      {
        content: [use('r1', 'repeat', { word: 'ab' }), use('r2', 'repeat', { word: 7 }), use('a1', 'add', { a: 2, b: 3 }), use('a2', 'add', { a: 'x', b: 1 })],
        stop_reason: 'tool_use',
      },
      { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
    );
    const run = await runAgent('go', {
      model: 'claude-test',
      modelCall: createAnthropicModel({ apiKey: 'sk-test', baseURL: server.url }),
      tools: [repeat, add],
      cwd: dir,
    });

    expect(run.context.exitReason).toBe('completed');
    const tools = server.requests[0]?.body?.tools as Array<{ name: string; input_schema: unknown }>;
    expect(tools.map((t) => [t.name, t.input_schema])).toEqual([
      [
        'repeat',
        {
          type: 'object',
          properties: {
            word: { type: 'string', minLength: 1, description: 'The word' },
            times: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 2 },
          },
          required: ['word'],
        },
      ],
      ['add', { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }],
    ]);
    const results = lastToolResults(server.requests[1]?.body as never).map((r) => [r.tool_use_id, r.content, r.is_error ?? false]);
    expect(results).toEqual([
      ['r1', 'abab', false],
      ['r2', 'Invalid input for repeat: "word": Invalid input: expected string, received number.', true],
      ['a1', '5', false],
      ['a2', 'Invalid input for add: a must be a number (was a string).', true],
    ]);
    expect(calls).toEqual([{ word: 'ab', times: 2 }]);
  });

  it('refuses, when the tool is defined, a schema that gives no JSON Schema or is not an object: never its internals', () => {
    const withoutJsonSchema: StandardSchemaV1<unknown, { a: string }> = {
      '~standard': { version: 1, vendor: 'somelib', validate: (value) => ({ value: value as { a: string } }) },
    };
    const declare = (input: Parameters<typeof defineTool>[0]['input']) => () =>
      defineTool({ name: 't', description: 'd', input, run: async () => ({ content: '', isError: false }) });
    expect(declare(withoutJsonSchema)).toThrow('defineTool(t): the somelib schema gives no JSON Schema to send to the model');
    expect(declare(z.string() as never)).toThrow("defineTool(t): a tool's input is an object, and this zod schema is not");
    expect(declare({ type: 'string' } as never)).toThrow('defineTool(t): input must be a Standard Schema');
  });

  it('never starts an input early that is invalid or that its schema can only check later (async refinements)', async () => {
    const early = (input: unknown, schema: Parameters<typeof defineTool>[0]['input']) =>
      defineTool({ name: 't', description: 'd', input: schema, isConcurrencySafe: () => true, run: async () => ({ content: '', isError: false }) }).isConcurrencySafe?.(input);
    const word = z.object({ word: z.string() });
    expect(early({ word: 'a' }, word)).toBe(true);
    expect(early({ word: 1 }, word)).toBe(false);
    const checkedLater = z.object({ word: z.string().refine(async (w) => w !== 'no') });
    expect(early({ word: 'a' }, checkedLater)).toBe(false);
    const tool = defineTool({ name: 't', description: 'd', input: checkedLater, run: async () => ({ content: 'ran', isError: false }) });
    const signal = new AbortController().signal;
    expect(await tool.run({ word: 'no' }, { cwd: dir, signal })).toMatchObject({ isError: true });
    expect(await tool.run({ word: 'yes' }, { cwd: dir, signal })).toEqual({ content: 'ran', isError: false });
    // agentloop's own s schemas go the same way.
    expect(early({ path: 'x' }, s.object({ path: s.string() }))).toBe(true);
    expect(early({ path: 1 }, s.object({ path: s.string() }))).toBe(false);
  });

  it("passes the tool contract through: publicName, display, permission, span attributes; isReadOnly on a valid input only", async () => {
    const permission = { matches: () => true };
    const tool = defineTool({
      name: 'note',
      publicName: 'Note',
      description: 'd',
      input: z.object({ path: z.string() }),
      isReadOnly: ({ path }) => path.endsWith('.md'),
      permission,
      display: { call: (input) => `Note ${(input as { path: string }).path}` },
      spanAttributes: { 'app.kind': 'notes' },
      run: async () => ({ content: '', isError: false }),
    });
    expect([tool.publicName, tool.display?.call({ path: 'a.md' }), tool.permission, tool.spanAttributes]).toEqual(['Note', 'Note a.md', permission, { 'app.kind': 'notes' }]);
    expect(await tool.isReadOnly?.({ path: 'a.md' })).toBe(true);
    expect(await tool.isReadOnly?.({ path: 'a.ts' })).toBe(false);
    expect(await tool.isReadOnly?.({ path: 42 })).toBe(false);
  });
});
