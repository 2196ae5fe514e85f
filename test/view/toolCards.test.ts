/**
 * The tool card follows from the tool contract, for every tool: the transcript keeps each call's public name and
 * display line (tool_start), so the viewer, which has no Tool objects, shows `$ ls`, `Read <path>` and an other tool's
 * `name {json}` as the terminal does; a call the permission gate denied shows the denial (its reason, its rule) on its
 * card, in both languages. An older transcript (no display line) still shows the name and the command or the JSON.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../src/core/tool.js';
import { machineGraph } from '../../src/diagram/graph.js';
import { agentMachine } from '../../src/machine/agentMachine.js';
import { defaultTools } from '../../src/run/defaultTools.js';
import { runAgent } from '../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../src/scripted/model.js';
import type { SessionRecord } from '../../src/transcript/records.js';
import { findSession, readTranscript } from '../../src/transcript/store.js';
import { toolEntry } from '../../src/view/cardLines.js';
import { render } from '../../src/view/texts/line.js';
import { buildTimeline, type Timeline } from '../../src/view/timeline.js';

const graph = machineGraph(agentMachine);
let dir: string;
let records: SessionRecord[];

/** A tool of the caller's own, with no display of its own: shown as its name and its input as JSON. */
const echo: Tool = {
  name: 'echo',
  description: 'echoes',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  isReadOnly: () => true,
  run: async (input) => ({ content: String((input as { text?: unknown }).text), isError: false }),
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-toolcards-'));
  writeFileSync(join(dir, 'alpha.txt'), 'alpha\n');
  const home = join(dir, '.home');
  const model = scriptedModel([
    reply.toolUse([
      { id: 'toolu_read', name: 'Read', input: { file_path: join(dir, 'alpha.txt') } },
      { id: 'toolu_ls', name: 'bash', input: { command: 'ls' } },
      { id: 'toolu_echo', name: 'echo', input: { text: 'hi' } },
    ]),
    reply.toolUse([{ id: 'toolu_write', name: 'Write', input: { file_path: join(dir, 'beta.txt'), content: 'b' } }]),
    reply.toolUse([{ id: 'toolu_edit', name: 'Edit', input: { file_path: join(dir, 'alpha.txt'), old_string: 'alpha', new_string: 'beta' } }]),
    reply.text('done'),
  ]);
  const tools = [...defaultTools({ cwd: dir, tools: ['Bash', 'Read', 'Write', 'Edit'] }), echo];
  const { sessionId } = await runAgent('look, then write', { model: 'm', modelCall: model.call, tools, cwd: dir, permissions: { mode: 'default', deny: ['Write'] }, session: { home } });
  records = readTranscript(findSession(home, sessionId)).records;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each tool's card at the last step: its head, and its lines in English and Chinese. */
function cards(t: Timeline) {
  const last = t.steps.length - 1;
  return Object.fromEntries(
    t.tools.filter((x) => x.kind === 'start').map((start) => {
      const entry = toolEntry(t, start, last);
      const lines = (lang: 'en' | 'zh') => entry.items.flatMap((it) => (it.line ? [render(lang, it.line)] : []));
      return [start.id, { head: entry.head, en: lines('en'), zh: lines('zh'), denied: entry.items.filter((it) => it.testid === 'tool-denied').length }];
    }),
  );
}

describe("the tool card shows each call as the tool's contract does", () => {
  it('records the public name and the display line of every call in its tool_start', () => {
    const starts = records.flatMap((r) => (r.type === 'tool_start' ? [[r.block.id, r.publicName, r.display]] : []));
    expect(starts).toEqual([
      ['toolu_read', 'Read', `Read ${join(dir, 'alpha.txt')}`],
      ['toolu_ls', 'Bash', '$ ls'],
      ['toolu_echo', 'echo', 'echo {"text":"hi"}'],
      ['toolu_write', 'Write', `Write ${join(dir, 'beta.txt')}`],
      ['toolu_edit', 'Edit', expect.stringMatching(/^Edit /)],
    ]);
  });

  it('shows the display line on the card of every tool, and a denial with its reason and rule, in both languages', () => {
    const shown = cards(buildTimeline(records, graph));
    expect(shown.toolu_read?.head).toEqual({ call: `Read ${join(dir, 'alpha.txt')}` });
    expect(shown.toolu_ls?.head).toEqual({ call: '$ ls' });
    expect(shown.toolu_echo?.head).toEqual({ call: 'echo {"text":"hi"}' });
    expect(shown.toolu_write?.head).toEqual({ call: `Write ${join(dir, 'beta.txt')}` });
    for (const id of ['toolu_read', 'toolu_ls', 'toolu_echo']) expect(shown[id]?.denied, id).toBe(0);
    // Denied by the deny rule: the rule and the gate's reason, never run.
    expect(shown.toolu_write?.en).toContain('⛔ denied by the permission rule Write, never run: denied by rule Write');
    expect(shown.toolu_write?.zh).toContain('⛔ 被权限规则 Write 拒绝，没有运行：denied by rule Write');
    // Denied by the mode (no rule): the gate's reason.
    const edit = shown.toolu_edit?.en.find((l) => l.startsWith('⛔'));
    expect(edit).toMatch(/^⛔ denied by the permission gate, never run: not allowed in permission mode default: .*Edit/);
    expect(shown.toolu_edit?.zh.find((l) => l.startsWith('⛔'))).toMatch(/^⛔ 被权限门拒绝，没有运行：not allowed in permission mode default/);
  });

  it('shows an older transcript (no display line) as before: the name and the command, or the input as JSON', () => {
    const old = records.map((r) => {
      if (r.type !== 'tool_start') return r;
      const { publicName: _p, display: _d, ...rest } = r;
      return rest;
    });
    const shown = cards(buildTimeline(old, graph));
    expect(shown.toolu_ls?.head).toEqual({ name: 'bash', call: 'ls' });
    expect(shown.toolu_read?.head).toEqual({ name: 'Read', call: JSON.stringify({ file_path: join(dir, 'alpha.txt') }) });
  });
});
