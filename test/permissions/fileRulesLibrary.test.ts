/**
 * A library run (runAgent with `permissions`, the tools of defaultTools) applies the file tools' rules as the CLI does
 * (fileRules.test.ts): `Edit(...)` rules to Write, `Read(...)` deny rules to Glob and Grep, whose walks leave out what
 * they cover (the run gives its deny rules to the tools: ToolContext.denyRules), and a gate built beforehand does too.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/core/messages.js';
import { createPermissionGate } from '../../src/permissions/gate.js';
import { defaultTools } from '../../src/run/defaultTools.js';
import { runAgent, type RunAgentOptions } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { scratchDir } from '../support/scratch.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = scratchDir('file-rules-'));
  mkdirSync(join(dir, 'secret'));
  writeFileSync(join(dir, 'notes.txt'), 'hush here\n');
  writeFileSync(join(dir, 'secret', 'key.txt'), 'hush secret\n');
});
afterEach(() => cleanup());

async function call(name: string, input: Record<string, unknown>, permissions: RunAgentOptions['permissions']) {
  const steps = [reply.toolUse([{ id: 't1', name, input }]), reply.text('done')];
  const tools = defaultTools({ cwd: dir, tools: ['Read', 'Write', 'Edit', 'Glob', 'Grep'] });
  const result = await runAgent('go', { model: 'm', modelCall: scriptedModel(steps).call, tools, cwd: dir, permissions });
  const blocks = result.context.messages.flatMap((m: MessageParam) => (typeof m.content === 'string' ? [] : m.content));
  return blocks.find((b) => b.type === 'tool_result') as { content: string; is_error?: boolean };
}

describe('file tools under rules, as a library', () => {
  it('Edit(*.txt) allows a Write of a.txt, not of a.md', async () => {
    await call('Write', { file_path: join(dir, 'a.txt'), content: 'a' }, { mode: 'default', allow: ['Edit(*.txt)'] });
    expect(existsSync(join(dir, 'a.txt'))).toBe(true);
    await call('Write', { file_path: join(dir, 'a.md'), content: 'a' }, { mode: 'default', allow: ['Edit(*.txt)'] });
    expect(existsSync(join(dir, 'a.md'))).toBe(false);
  });

  it('Edit(secret/**) denies a Write there in acceptEdits; a bare Edit deny does not', async () => {
    const denied = await call('Write', { file_path: join(dir, 'secret', 'b.txt'), content: 'b' }, { mode: 'acceptEdits', deny: ['Edit(secret/**)'] });
    expect(denied.is_error).toBe(true);
    expect(existsSync(join(dir, 'secret', 'b.txt'))).toBe(false);
    await call('Write', { file_path: join(dir, 'c.txt'), content: 'c' }, { mode: 'acceptEdits', deny: ['Edit'] });
    expect(existsSync(join(dir, 'c.txt'))).toBe(true);
  });

  it('Read(secret/**) leaves secret/ out of Glob and Grep, and denies a search of secret', async () => {
    const deny = { mode: 'default' as const, deny: ['Read(secret/**)'] };
    expect((await call('Glob', { pattern: '**/*.txt' }, deny)).content).toBe('notes.txt');
    expect((await call('Grep', { pattern: 'hush' }, deny)).content).toBe('Found 1 file\nnotes.txt');
    expect(await call('Grep', { pattern: 'hush', path: join(dir, 'secret') }, deny)).toMatchObject({ is_error: true });
    const gate = createPermissionGate({ cwd: dir, mode: 'default', deny: ['Read(secret/**)'] });
    expect((await call('Grep', { pattern: 'hush', output_mode: 'content' }, gate)).content).toBe('notes.txt:1:hush here');
  });
});
