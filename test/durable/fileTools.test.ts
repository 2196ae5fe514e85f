/**
 * The file tools in a durable run (issue 44): a Write or an Edit is an effect, journalled as a writing command is (a
 * call cut off while it ran is answered interrupted, never run again); a Read runs again. The journalled tools keep the
 * tool contract (public name, display, permission), so hooks and the gate see the same tool as in a local run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toolCallLine } from '../../src/core/tool.js';
import { INTERRUPTED_BY_WORKER, journalledTools } from '../../src/durable/journal.js';
import { defaultTools } from '../../src/run/defaultTools.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { crashed, invocation, run, toolResults } from './memoryJournal.js';

const dir = mkdtempSync(join(tmpdir(), 'durable-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = (name: string, input: Record<string, unknown>) =>
  scriptedModel([reply.toolUse([{ id: 'toolu_1', name, input }]), reply.text('done')]);

describe('the file tools, journalled', () => {
  it('a Write cut off while it ran is answered interrupted on another worker, and not run again', async () => {
    const file = join(dir, 'made.txt');
    const model = script('Write', { file_path: file, content: 'one\n' });
    const run1 = invocation();
    const first = run1.attempt([], { crashAt: 2 });
    const recorded = await crashed(first, () => run(first, model.call, defaultTools({ cwd: dir, tools: ['Write'] }), { cwd: dir }));
    expect(recorded[1]).toEqual({ name: 'tool Write starts', value: { readOnly: false } });
    expect(readFileSync(file, 'utf8')).toBe('one\n');
    writeFileSync(file, 'changed since\n');
    const result = await run(run1.attempt(recorded, { worker: 'worker-2' }), model.call, defaultTools({ cwd: dir, tools: ['Write'] }), { cwd: dir });
    expect(toolResults(result)).toEqual([expect.objectContaining({ content: INTERRUPTED_BY_WORKER, is_error: true })]);
    expect(readFileSync(file, 'utf8')).toBe('changed since\n');
  });

  it('a Read cut off runs again', async () => {
    writeFileSync(join(dir, 'notes.md'), 'alpha\n');
    const model = script('Read', { file_path: join(dir, 'notes.md') });
    const run1 = invocation();
    const first = run1.attempt([], { crashAt: 2 });
    const recorded = await crashed(first, () => run(first, model.call, defaultTools({ cwd: dir, tools: ['Read'] }), { cwd: dir }));
    expect(recorded[1]).toEqual({ name: 'tool Read starts', value: { readOnly: true } });
    const result = await run(run1.attempt(recorded, { worker: 'worker-2' }), model.call, defaultTools({ cwd: dir, tools: ['Read'] }), { cwd: dir });
    expect(toolResults(result)).toEqual([expect.objectContaining({ content: expect.stringContaining('alpha') })]);
  });

  it('keeps the contract: the public name, the display, the permission and the read-only check', async () => {
    const [bash, edit] = journalledTools(invocation().attempt([]).steps, defaultTools({ cwd: dir, tools: ['Bash', 'Edit'] }));
    expect([bash?.publicName, edit?.publicName]).toEqual(['Bash', 'Edit']);
    expect(toolCallLine(bash, 'bash', { command: 'ls -A' })).toBe('$ ls -A');
    expect(edit?.permission?.isEditWithin).toBeTypeOf('function');
    expect(await bash?.isReadOnly?.({ command: 'ls -A' })).toBe(true);
  });
});
