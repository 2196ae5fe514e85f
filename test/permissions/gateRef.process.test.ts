/**
 * runAgent's `permissions` as a reference (`GateRef`, src/run/permissionHooks.ts): the run judges each call by the
 * gate the reference holds when the call is decided, so a gate swapped in mid-run (a new one: gates are immutable)
 * decides the calls after the swap, in the turn under way too, as set_permission_mode does in the SDK channel. Rules
 * the asker allows for the session go into the reference, in the mode it holds then.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { runAgent } from '../../src/run/runAgent.js';
import { defaultTools } from '../../src/run/defaultTools.js';
import { createPermissionGate, type PermissionQuestion } from '../../src/permissions/gate.js';
import type { GateRef } from '../../src/run/permissionHooks.js';
import { scratchDir } from '../support/scratch.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = scratchDir('gateref-')));
afterEach(() => cleanup());

const touch = (file: string, id: string) => reply.toolUse([{ id, name: 'bash', input: { command: `touch ${file}` } }]);

async function run(ref: GateRef, onEvent: (e: RunEvent) => void, steps = [touch('a.txt', 't1'), reply.text('done')]) {
  const events: RunEvent[] = [];
  await runAgent('make it', { model: 'm', modelCall: scriptedModel(steps).call, tools: defaultTools({ cwd: dir }), cwd: dir, permissions: ref, onEvent: (e) => (events.push(e), onEvent(e)) });
  return events.filter((e) => e.type === 'permission_denied').map((e) => (e as { block: { id: string } }).block.id);
}

describe('runAgent with a GateRef', () => {
  it('a mode swapped in once the reply is in decides that reply\'s call: touch runs in acceptEdits', async () => {
    const ref: GateRef = { current: createPermissionGate({ cwd: dir, mode: 'default' }) };
    const first = ref.current;
    const denied = await run(ref, (e) => {
      if (e.type === 'tool_use') ref.current = ref.current.withMode('acceptEdits');
    });
    expect(denied).toEqual([]);
    expect(existsSync(join(dir, 'a.txt'))).toBe(true);
    expect(first.mode).toBe('default'); // the gate it started with is unchanged
  });

  it('without the swap the same call is denied; a swap back to default mid-run denies the calls after it', async () => {
    const ref: GateRef = { current: createPermissionGate({ cwd: dir, mode: 'acceptEdits' }) };
    const denied = await run(
      ref,
      (e) => {
        if (e.type === 'tool_result') ref.current = ref.current.withMode('default');
      },
      [touch('a.txt', 't1'), touch('b.txt', 't2'), reply.text('done')],
    );
    expect(existsSync(join(dir, 'a.txt'))).toBe(true);
    expect(existsSync(join(dir, 'b.txt'))).toBe(false);
    expect(denied).toEqual(['t2']);
  });

  it('rules the asker allows for the session go into the reference, in the mode set while it was asked', async () => {
    const ref: GateRef = { current: createPermissionGate({ cwd: dir, mode: 'default' }) };
    const asked: string[] = [];
    ref.current = ref.current.withAsker(async (q: PermissionQuestion) => {
      asked.push(q.block.id);
      ref.current = ref.current.withMode('dontAsk');
      return { allow: true, rules: ['Bash(touch:*)'] };
    });
    const denied = await run(ref, () => {}, [touch('a.txt', 't1'), touch('b.txt', 't2'), reply.text('done')]);
    expect(denied).toEqual([]);
    expect(asked).toEqual(['t1']); // t2 ran by the rule allowed for the session, in dontAsk (which asks nobody)
    expect(ref.current.mode).toBe('dontAsk');
    expect(ref.current.rules.map((r) => `${r.effect} ${r.rule}`)).toContain('allow Bash(touch:*)');
    expect(existsSync(join(dir, 'b.txt'))).toBe(true);
  });
});
