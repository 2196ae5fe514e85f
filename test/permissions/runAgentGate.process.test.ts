/**
 * runAgent's `permissions` (src/permissions/gate.ts, src/run/permissionHooks.ts), with the real bash tool in a scratch
 * folder and a scripted model: the mode and the rules decide whether `touch` runs, the model gets the denial, every
 * listener a `permission_denied` event; a hook's allow skips the asking but not a deny rule; the asker.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import type { MessageParam } from '../../src/core/messages.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import { runAgent, type RunAgentOptions } from '../../src/run/runAgent.js';
import { defaultTools } from '../../src/run/defaultTools.js';
import { createPermissionGate, type PermissionQuestion } from '../../src/permissions/gate.js';
import { findSession } from '../../src/transcript/store.js';
import { scratchDir } from '../support/scratch.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = scratchDir('gate-')));
afterEach(() => cleanup());

const touch = (file: string, id = 't1') => reply.toolUse([{ id, name: 'bash', input: { command: `touch ${file}` } }]);

async function run(options: Partial<RunAgentOptions>, steps = [touch('made.txt'), reply.text('done')]) {
  const events: RunEvent[] = [];
  const result = await runAgent('make it', { model: 'm', modelCall: scriptedModel(steps).call, tools: defaultTools({ cwd: dir }), cwd: dir, onEvent: (e) => events.push(e), ...options });
  const results = result.context.messages.flatMap((m: MessageParam) => (typeof m.content === 'string' ? [] : m.content)).filter((b) => b.type === 'tool_result');
  return { result, events, results, denials: events.filter((e) => e.type === 'permission_denied') };
}

describe('runAgent permissions', () => {
  it("mode default: touch does not run, the model is told why, listeners get permission_denied", async () => {
    const { results, denials } = await run({ permissions: { mode: 'default' } });
    expect(existsSync(join(dir, 'made.txt'))).toBe(false);
    expect(results[0]).toMatchObject({ is_error: true, content: expect.stringMatching(/^Not run: not allowed in permission mode default: .*"touch made.txt" is not one/) });
    expect(denials).toEqual([expect.objectContaining({ toolName: 'Bash', rule: null, decidedBy: 'mode', block: expect.objectContaining({ id: 't1' }) })]);
  });

  it('the transcript keeps the denial, before the call\'s result', async () => {
    const home = join(dir, '.home');
    const { result } = await run({ permissions: { mode: 'default' }, session: { home } });
    const records = readFileSync(findSession(home, result.sessionId), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    const types = records.map((r) => r.type).filter((t) => t === 'permission_denied' || t === 'tool_result');
    expect(types).toEqual(['permission_denied', 'tool_result']);
    expect(records.find((r) => r.type === 'permission_denied')).toMatchObject({ toolUseId: 't1', toolName: 'Bash', rule: null, decidedBy: 'mode' });
  });

  it("allow: ['Bash(touch:*)'] runs it; a deny rule wins over it, in bypassPermissions too", async () => {
    await run({ permissions: { mode: 'default', allow: ['Bash(touch:*)'] } });
    expect(existsSync(join(dir, 'made.txt'))).toBe(true);
    const bypass = await run({ permissions: { mode: 'bypassPermissions', allow: ['Bash(touch:*)'], deny: ['Bash(touch:*)'], env: { IS_SANDBOX: '1' } } }, [touch('other.txt'), reply.text('done')]);
    expect(existsSync(join(dir, 'other.txt'))).toBe(false);
    expect(bypass.denials).toEqual([expect.objectContaining({ rule: 'Bash(touch:*)', decidedBy: 'rule', reason: 'denied by rule Bash(touch:*)' })]);
  });

  it('a read-only command runs unasked in mode default; no permissions: every call runs', async () => {
    const ls = reply.toolUse([{ id: 't1', name: 'bash', input: { command: 'ls' } }]);
    expect((await run({ permissions: { mode: 'default' } }, [ls, reply.text('ok')])).denials).toEqual([]);
    await run({});
    expect(existsSync(join(dir, 'made.txt'))).toBe(true);
  });

  it('an ask rule asks even when an allow rule matches, and in bypassPermissions; without an asker it denies', async () => {
    const asked: PermissionQuestion[] = [];
    const asker = async (q: PermissionQuestion) => (asked.push(q), { allow: false as const, message: 'not today' });
    const { results } = await run({ permissions: { mode: 'default', allow: ['Bash'], ask: ['Bash(touch:*)'], asker } });
    expect(asked.map((q) => q.reason)).toEqual(['asked by rule Bash(touch:*)']);
    expect(results[0]).toMatchObject({ content: 'Not run: not today' });
    const gate = createPermissionGate({ cwd: dir, mode: 'bypassPermissions', ask: ['Bash(touch:*)'], uid: 1000 });
    const none = await run({ permissions: gate });
    expect(existsSync(join(dir, 'made.txt'))).toBe(false);
    expect(none.denials).toEqual([expect.objectContaining({ reason: 'asked by rule Bash(touch:*)', decidedBy: 'rule' })]);
  });

  it("the asker's allow runs the call, with its input; rules it allows hold for the rest of the run", async () => {
    const asked: PermissionQuestion[] = [];
    const asker = async (q: PermissionQuestion) => (asked.push(q), { allow: true as const, rules: [q.suggestion as string] });
    // Claude Code's rule for `touch a.txt` is that very command: the same call again is not asked.
    await run({ permissions: { asker } }, [touch('a.txt'), touch('a.txt', 't2'), reply.text('done')]);
    expect(existsSync(join(dir, 'a.txt'))).toBe(true);
    expect(asked.map((q) => q.suggestion)).toEqual(['Bash(touch a.txt)']);
    const changed = await run({ permissions: { asker: async () => ({ allow: true, input: { command: 'touch changed.txt' } }) } }, [touch('asked.txt'), reply.text('done')]);
    expect(existsSync(join(dir, 'changed.txt')) && !existsSync(join(dir, 'asked.txt'))).toBe(true);
    expect(changed.denials).toEqual([]);
  });

  it("a hook's allow skips the asking, not a deny rule; a hook's changed input is what the gate judges", async () => {
    const allowAll: RunAgentOptions['hooks'] = { beforeToolCall: () => ({ action: 'allow' }) };
    await run({ hooks: allowAll, permissions: { mode: 'default' } });
    expect(existsSync(join(dir, 'made.txt'))).toBe(true);
    const denied = await run({ hooks: allowAll, permissions: { deny: ['Bash(touch:*)'] } }, [touch('x.txt'), reply.text('done')]);
    expect(existsSync(join(dir, 'x.txt'))).toBe(false);
    expect(denied.denials).toHaveLength(1);
    const toRm: RunAgentOptions['hooks'] = { beforeToolCall: () => ({ action: 'change', input: { command: 'rm -f made.txt' } }) };
    await run({ hooks: toRm, permissions: { mode: 'bypassPermissions', deny: ['Bash(rm:*)'], uid: 1000 } }, [touch('y.txt'), reply.text('done')]);
    expect(existsSync(join(dir, 'made.txt'))).toBe(true);
  });

  it('a bad rule, or bypassPermissions as root outside a sandbox, throws before anything runs', async () => {
    await expect(run({ permissions: { allow: ['Bash(git:*x)'] } })).rejects.toThrow(/invalid permission rule "Bash\(git:\*x\)": ":\*" must end the rule/);
    await expect(run({ permissions: { mode: 'bypassPermissions', uid: 0, env: {} } })).rejects.toThrow(/cannot be used with root/);
    expect(() => createPermissionGate({ cwd: dir, uid: 0, env: {} }).withMode('bypassPermissions')).toThrow(/cannot be used with root/);
    expect(createPermissionGate({ cwd: dir, uid: 0, env: { IS_SANDBOX: '1' } }).withMode('bypassPermissions').mode).toBe('bypassPermissions');
    expect(existsSync(join(dir, 'made.txt'))).toBe(false);
  });
});
