/**
 * The file tools' edges beyond Claude Code's recording: bad input answered as a tool error (never a throw), a FIFO
 * refused before it is opened (it would block), the permission side of the contract (rules `Read(...)`, `Edit(...)`
 * with Claude Code's path patterns, acceptEdits' `isEditWithin`), and a resumed run's file state.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/core/tool.js';
import { createFileTools, FileState } from '../../../src/tools/fileAccess/fileTools.js';

let cwd: string;
let home: string;
let tools: ReturnType<typeof createFileTools>;
const signal = new AbortController().signal;
const run = (tool: Tool, input: unknown) => tool.run(input, { signal, cwd });

beforeEach(() => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'agentloop-fileedges-')));
  home = join(base, 'home');
  cwd = join(home, 'project');
  mkdirSync(join(cwd, 'src'), { recursive: true });
  writeFileSync(join(cwd, 'src', 'a.ts'), 'export const a = 1;\n');
  tools = createFileTools({ cwd, home, env: { HOME: home, AGENTLOOP_HOME: join(base, 'agentloop') } });
});
afterEach(() => rmSync(join(home, '..'), { recursive: true, force: true }));

describe('bad input', () => {
  it('is a tool error naming the field, for every tool', async () => {
    for (const [tool, input, field] of [
      [tools.Read, {}, 'file_path'],
      [tools.Read, { file_path: 3 }, 'file_path'],
      [tools.Read, { file_path: 'a', limit: 0 }, 'limit'],
      [tools.Write, { file_path: 'x' }, 'content'],
      [tools.Edit, { file_path: 'x', old_string: 'a' }, 'new_string'],
      [tools.Glob, { pattern: '*', extra: 1 }, 'extra'],
      [tools.Grep, { pattern: 'x', output_mode: 'lines' }, 'output_mode'],
      [tools.Grep, null, 'object'],
    ] as const) {
      const result = await run(tool, input);
      expect(result.isError).toBe(true);
      expect(result.content).toContain(field);
      expect(result.content).toMatch(/^<tool_use_error>InputValidationError: /);
    }
  });

  it('a bad regular expression is a tool error', async () => {
    const result = await run(tools.Grep, { pattern: '(unclosed' });
    expect(result).toMatchObject({ isError: true });
    expect(result.content).toMatch(/^regex parse error/);
  });

  it('a FIFO is refused before it is opened, by Read, Write and Edit', async () => {
    execFileSync('mkfifo', [join(cwd, 'pipe')]);
    for (const [tool, input] of [
      [tools.Read, { file_path: 'pipe' }],
      [tools.Write, { file_path: 'pipe', content: 'x' }],
      [tools.Edit, { file_path: 'pipe', old_string: 'a', new_string: 'b' }],
    ] as const) {
      const result = await run(tool, input);
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/would block/);
    }
  });
});

describe('permission rules, as Claude Code reads their paths', () => {
  const dirs = () => [cwd];
  it('matches Edit(...) patterns rooted as Claude Code roots them', async () => {
    const edit = tools.Edit.permission!;
    const call = (file_path: string) => ({ file_path, old_string: 'a', new_string: 'b' });
    expect(await edit.matches('src/**', call('src/a.ts'), 'allow', dirs())).toBe(true);
    expect(await edit.matches('./src/**', call(join(cwd, 'src/a.ts')), 'allow', dirs())).toBe(true);
    expect(await edit.matches('/src/*.ts', call('src/a.ts'), 'allow', dirs())).toBe(true);
    expect(await edit.matches(`/${cwd}/src/**`, call('src/a.ts'), 'allow', dirs())).toBe(true);
    expect(await edit.matches('~/project/src/**', call('src/a.ts'), 'allow', dirs())).toBe(true);
    expect(await edit.matches('~/other/**', call('src/a.ts'), 'allow', dirs())).toBe(false);
    expect(await edit.matches('*.ts', call('src/deep/b.ts'), 'deny', dirs())).toBe(true);
    expect(await edit.matches('src/**', call('../other/a.ts'), 'allow', dirs())).toBe(false);
    expect(() => edit.checkSpecifier!('')).toThrow(/empty/);
  });

  it('an allow rule covers a link only when its target is covered too; a deny rule either', async () => {
    mkdirSync(join(cwd, 'secret'));
    symlinkSync(join(cwd, 'secret'), join(cwd, 'src', 'door'));
    const read = tools.Read.permission!;
    expect(await read.matches('secret/**', { file_path: 'src/door/x' }, 'deny', dirs())).toBe(true);
    expect(await read.matches('src/**', { file_path: 'src/door/x' }, 'allow', dirs())).toBe(false);
  });

  it('acceptEdits: Write and Edit inside the working directory or an added one', async () => {
    const extra = realpathSync(mkdtempSync(join(tmpdir(), 'agentloop-adddir-')));
    try {
      expect(await tools.Write.permission!.isEditWithin!({ file_path: 'src/new.ts', content: '' }, [cwd, extra])).toBe(true);
      expect(await tools.Edit.permission!.isEditWithin!({ file_path: join(extra, 'x'), old_string: 'a', new_string: 'b' }, [cwd, extra])).toBe(true);
      expect(await tools.Write.permission!.isEditWithin!({ file_path: '/etc/x', content: '' }, [cwd, extra])).toBe(false);
      expect(await tools.Write.permission!.isEditWithin!({ file_path: '../x', content: '' }, [cwd])).toBe(false);
    } finally {
      rmSync(extra, { recursive: true, force: true });
    }
  });

  it('Read, Glob and Grep are read-only, Write and Edit are not; each shows its call in one line', async () => {
    expect([tools.Read, tools.Glob, tools.Grep].map((t) => t.isReadOnly?.({}))).toEqual([true, true, true]);
    expect([tools.Write, tools.Edit].map((t) => t.isReadOnly?.({}))).toEqual([false, false]);
    expect(tools.Read.display!.call({ file_path: 'src/a.ts' })).toBe('Read src/a.ts');
    expect(tools.Grep.display!.call({ pattern: 'TODO', path: 'src' })).toBe('Grep "TODO" in src');
    expect(tools.Edit.permission!.suggestRule!({ file_path: join(cwd, 'src/a.ts') })).toBe('Edit(./src/a.ts)');
  });
});

describe("a resumed run's file state", () => {
  it('counts a file read in the history as read while its content is what the model saw', async () => {
    const path = join(cwd, 'src', 'a.ts');
    const history = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: path } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '1\texport const a = 1;\n2\t' }] },
    ];
    const state = new FileState();
    state.seedFromHistory(history, (p) => p);
    const resumed = createFileTools({ cwd, home, state });
    const edited = await run(resumed.Edit, { file_path: path, old_string: '1', new_string: '2' });
    expect(edited.isError).toBe(false);
    writeFileSync(path, 'changed by the user\n');
    const fresh = new FileState();
    fresh.seedFromHistory(history, (p) => p);
    const refused = await run(createFileTools({ cwd, home, state: fresh }).Write, { file_path: path, content: 'x' });
    expect(refused.content).toMatch(/modified since read/);
  });
});

describe("Read deny rules in a search, as Claude Code's Glob and Grep leave them out", () => {
  it('leaves out of Glob and Grep what a Read(...) deny pattern covers', async () => {
    mkdirSync(join(cwd, 'secrets'));
    writeFileSync(join(cwd, 'secrets', 'key.txt'), 'token here\n');
    writeFileSync(join(cwd, 'src', 'b.ts'), 'token here\n');
    const denied = createFileTools({ cwd, home, denyRead: ['secrets/**'] });
    const grep = await run(denied.Grep, { pattern: 'token' });
    expect(grep.content).toBe('Found 1 file\nsrc/b.ts');
    const glob = await run(denied.Glob, { pattern: '**/*.txt' });
    expect(glob.content).toBe('No files found');
    expect((await run(tools.Glob, { pattern: '**/*.txt' })).content).toBe('secrets/key.txt');
  });
});
