import { describe, expect, it } from 'vitest';
import { defineTool } from '../../src/tools/define.js';
import { inputProblem, s, type Infer } from '../../src/tools/schema.js';

const schema = s.object({
  path: s.string({ description: 'Path to read. Relative to the cwd' }),
  lines: s.optional(s.integer({ minimum: 1 })),
  mode: s.optional(s.enum(['text', 'hex'])),
  tags: s.optional(s.array(s.string())),
  deep: s.optional(s.object({ on: s.boolean() })),
});

describe('a tool input declared once', () => {
  it('is the JSON schema sent to the model', () => {
    expect(schema).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Path to read. Relative to the cwd' },
        lines: { type: 'integer', minimum: 1 },
        mode: { enum: ['text', 'hex'] },
        tags: { type: 'array', items: { type: 'string' } },
        deep: { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'] },
      },
      required: ['path'],
    });
  });

  it('gives the TypeScript type run receives', () => {
    const value: Infer<typeof schema> = { path: 'a', lines: 2, mode: 'hex', tags: ['x'], deep: { on: true } };
    // @ts-expect-error path is required
    const missing: Infer<typeof schema> = { lines: 2 };
    expect([value, missing]).toHaveLength(2);
  });

  it.each([
    [{ path: 'a' }, undefined],
    [{ path: 'a', lines: 3, mode: 'text', tags: [], deep: { on: false }, extra: 1 }, undefined],
    [{}, '"path" is required (Path to read)'],
    [{ path: 3 }, '"path" must be a string, got a number'],
    [{ path: 'a', lines: 1.5 }, '"lines" must be a whole number, got 1.5'],
    [{ path: 'a', lines: 0 }, '"lines" must be at least 1, got 0'],
    [{ path: 'a', mode: 'bin' }, '"mode" must be one of "text", "hex", got a string'],
    [{ path: 'a', tags: ['x', 2] }, '"tags[1]" must be a string, got a number'],
    [{ path: 'a', deep: { on: 'yes' } }, '"deep.on" must be true or false, got a string'],
    [[], 'the input must be an object, got an array'],
    [null, 'the input must be an object, got null'],
  ])('checks %j: %s', (input, problem) => {
    expect(inputProblem(schema, input)).toBe(problem);
  });

  it('refuses fields a closed object does not have', () => {
    expect(inputProblem({ ...s.object({ a: s.string() }), additionalProperties: false }, { a: 'x', b: 1 })).toBe('"b" is not a field of the input');
  });
});

describe('defineTool', () => {
  const tool = defineTool({
    name: 'read',
    description: 'reads',
    input: schema,
    isConcurrencySafe: ({ path }) => !path.startsWith('/'),
    run: async ({ path, lines }) => ({ content: `${path}:${lines ?? 'all'}`, isError: false }),
  });
  const context = { cwd: '.', signal: new AbortController().signal };

  it('runs on a valid input with the typed value', async () => {
    expect(await tool.run({ path: 'a.txt', lines: 2 }, context)).toEqual({ content: 'a.txt:2', isError: false });
    expect(tool.inputSchema).toBe(schema);
  });

  it('answers a bad input with an is_error result naming the field, without running', async () => {
    expect(await tool.run({ path: 1 }, context)).toEqual({ isError: true, content: 'Invalid input for read: "path" must be a string, got a number.' });
  });

  it('is never concurrency-safe on a bad input', () => {
    expect(tool.isConcurrencySafe?.({ path: 'a' })).toBe(true);
    expect(tool.isConcurrencySafe?.({ path: '/etc' })).toBe(false);
    expect(tool.isConcurrencySafe?.({ path: 5 })).toBe(false);
  });
});
