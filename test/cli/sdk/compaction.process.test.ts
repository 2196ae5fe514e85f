/**
 * Compaction for an Agent SDK program (issue 42), the real Agent SDK driving the built CLI: `/compact INSTRUCTIONS` as
 * a prompt, and a session that outgrows the window, each give Claude Code's `system/compact_boundary` message
 * (`compact_metadata`), and the program's PreCompact hook is told `manual` or `auto` first.
 */
import type { HookInput, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collectSdk } from '../../support/sdkCollect.js';
import { isSummaryBody, printingTask, DONE } from '../../support/compaction.js';
import { ANSWERS, shapeOf } from './recordPreCompact.js';
import { cliProjectPerTest, type CliProject } from '../../support/project.js';

let project: CliProject;
cliProjectPerTest('sdkcompact', (p) => (project = p), { noViolations: true });

const answer_ = (text: string) => ({ content: [{ type: 'text' as const, text }], stop_reason: 'end_turn' as const });
const recordedPreCompact = JSON.parse(readFileSync(new URL('./claudePreCompact.json', import.meta.url), 'utf8')) as {
  cases: Record<string, { summaryAsked: boolean; instructions: string | null; lines: Record<string, unknown>[] }>;
};
const boundaryOf = (messages: SDKMessage[]) => messages.find((m) => m.type === 'system' && m.subtype === 'compact_boundary');
function preCompactHook(seen: HookInput[]) {
  return { PreCompact: [{ hooks: [async (input: HookInput) => (seen.push(input), {})] }] };
}

describe('compaction for an Agent SDK program', () => {
  it('/compact INSTRUCTIONS: the PreCompact hook is told manual, then compact_boundary comes, and no model turn', async () => {
    project.server.enqueue(answer_('1, 2, 3'), answer_('<summary>We counted 1, 2, 3.</summary>'));
    const first = await collectSdk(project, 'count to three');
    const sessionId = (first.messages.find((m) => m.type === 'result') as { session_id: string }).session_id;
    const seen: HookInput[] = [];
    const { messages, thrown } = await collectSdk(project, '/compact keep the numbers', { resume: sessionId, hooks: preCompactHook(seen) });
    expect(thrown).toBeUndefined();
    expect(seen).toEqual([expect.objectContaining({ hook_event_name: 'PreCompact', trigger: 'manual', custom_instructions: 'keep the numbers', session_id: sessionId })]);
    expect(boundaryOf(messages)).toMatchObject({ session_id: sessionId, compact_metadata: { trigger: 'manual', pre_tokens: expect.any(Number), post_tokens: expect.any(Number) } });
    expect(isSummaryBody(project.server.requests[1]?.body)).toBe(true);
    expect(messages.find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', num_turns: 0 });
    expect(project.server.requests).toHaveLength(2);
  });

  it('a task past the window: the hook is told auto, compact_boundary comes mid-run, and the task finishes', async () => {
    printingTask(project.server, { chunks: 6, chars: 16_000 });
    const seen: HookInput[] = [];
    const env = { ...project.env, AGENTLOOP_CONTEXT_WINDOW: '12000' };
    const { messages, thrown } = await collectSdk(project, 'print the six chunks', {
      env,
      hooks: preCompactHook(seen),
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
    });
    expect(thrown).toBeUndefined();
    expect(boundaryOf(messages)).toMatchObject({ compact_metadata: { trigger: 'auto' } });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((input) => input.hook_event_name === 'PreCompact' && input.trigger === 'auto')).toBe(true);
    expect(messages.find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', result: DONE });
  });

  // How Claude Code 2.1.197 takes a PreCompact callback's answer (./claudePreCompact.json, ./recordPreCompact.ts): the
  // instructions its summary request carries, and the lines the program gets; the session goes on as it was after a block.
  it.each(Object.entries(ANSWERS))('a PreCompact callback answering %s: as Claude Code', async (name, { prompt, answer }) => {
    const want = recordedPreCompact.cases[name]!;
    project.server.enqueue(answer_('1, 2, 3'), answer_('4'), ...(want.summaryAsked ? [answer_('<summary>S</summary>')] : []));
    let sessionId = '';
    for (const p of ['count to three', 'and four']) {
      const run = await collectSdk(project, p, sessionId ? { resume: sessionId } : {});
      sessionId = (run.messages.find((m) => m.type === 'result') as { session_id: string }).session_id;
    }
    const hooks = { PreCompact: [{ hooks: [async () => answer] }] };
    const { messages, thrown } = await collectSdk(project, prompt, { resume: sessionId, hooks });
    expect(thrown).toBeUndefined();
    const asked = project.server.requests.slice(2).find((r) => isSummaryBody(r.body));
    expect(asked !== undefined).toBe(want.summaryAsked);
    const text = JSON.stringify(asked?.body?.messages.at(-1) ?? '');
    const instructions = /Additional Instructions:\\n([\s\S]*?)\\n\\nREMINDER/.exec(text)?.[1];
    expect(instructions === undefined ? null : (JSON.parse(`"${instructions}"`) as string)).toBe(want.instructions);
    const lines = messages.filter((m) => !(m.type === 'system' && m.subtype === 'init')).map(shapeOf);
    expect(lines.filter((l) => l.type !== 'user' || JSON.stringify(l.content).includes('local-command-stdout'))).toEqual(want.lines);
  });

  it('a task past the window with a PreCompact callback that blocks: told auto, nothing compacted, the task finishes', async () => {
    printingTask(project.server, { chunks: 4, chars: 16_000 });
    const seen: HookInput[] = [];
    const hooks = { PreCompact: [{ hooks: [async (input: HookInput) => (seen.push(input), { decision: 'block' as const })] }] };
    const env = { ...project.env, AGENTLOOP_CONTEXT_WINDOW: '12000' };
    const { messages, thrown } = await collectSdk(project, 'print the four chunks', { env, hooks, permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true });
    expect(thrown).toBeUndefined();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((input) => input.hook_event_name === 'PreCompact' && input.trigger === 'auto')).toBe(true);
    expect(boundaryOf(messages)).toBeUndefined();
    expect(project.server.requests.some((r) => isSummaryBody(r.body))).toBe(false);
    expect(messages.find((m) => m.type === 'result')).toMatchObject({ subtype: 'success', result: DONE });
  });
});

