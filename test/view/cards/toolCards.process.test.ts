/**
 * The tool card follows from the tool contract, for every tool: the transcript keeps each call's public name and
 * display line (tool_start), so the viewer, which has no Tool objects, shows `$ ls`, `Read <path>` and an other tool's
 * `name {json}` as the terminal does; a call the permission gate denied shows the denial (its reason, its rule) on its
 * card, in both languages. An older transcript (no display line) still shows the name and the command or the JSON.
 * The same line wherever else a call is shown: the reply card's list of tool_use blocks, the step sentences, the
 * stepper (`--step`) and the sequence diagram; each caption is checked against the records it describes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/core/events.js';
import type { Tool } from '../../../src/core/tool.js';
import { defineTool } from '../../../src/tools/define.js';
import { s } from '../../../src/tools/schema.js';
import { machineGraph } from '../../../src/diagram/graph.js';
import { agentMachine } from '../../../src/machine/agentMachine.js';
import { defaultTools } from '../../../src/run/defaultTools.js';
import { runAgent } from '../../../src/run/runAgent.js';
import { reply, scriptedModel } from '../../../src/scripted/model.js';
import type { SessionRecord } from '../../../src/transcript/records.js';
import { findSession, readTranscript } from '../../../src/transcript/store.js';
import { NO_CONTEXT } from '../../../src/view/cards/card.js';
import { replyCard } from '../../../src/view/cards/reply.js';
import { toolEntry } from '../../../src/view/cards/tool.js';
import { readOrder } from '../../../src/view/timeline/read.js';
import { sequenceDiagram } from '../../../src/view/lesson/sequence.js';
import { paragraph, render, tr } from '../../../src/view/texts/render.js';
import { Stepper, type Effect } from '../../../src/run/gate.js';
import { checkShown } from '../../support/lessonCheck.js';
import { shownSteps } from '../../support/lessonShown.js';
import { waitFor } from '../../support/sessions.js';
import { buildTimeline, type Timeline } from '../../../src/view/timeline/build.js';

const graph = machineGraph(agentMachine);
let dir: string;
let records: SessionRecord[];
const events: RunEvent[] = [];

/** A tool of the caller's own, named as an MCP server's, with no display of its own: shown as its name and its input as JSON. */
const echo: Tool = defineTool({
  name: 'mcp__notes__echo',
  description: 'echoes',
  input: s.object({ text: s.string() }),
  isReadOnly: () => true,
  run: async ({ text }) => ({ content: text, isError: false }),
});
const ECHO_LINE = 'mcp__notes__echo {"text":"hi"}';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentloop-toolcards-'));
  writeFileSync(join(dir, 'alpha.txt'), 'alpha\n');
  const home = join(dir, '.home');
  const model = scriptedModel([
    reply.toolUse([
      { id: 'toolu_read', name: 'Read', input: { file_path: join(dir, 'alpha.txt') } },
      { id: 'toolu_ls', name: 'bash', input: { command: 'ls' } },
      { id: 'toolu_echo', name: 'mcp__notes__echo', input: { text: 'hi' } },
    ]),
    reply.toolUse([{ id: 'toolu_write', name: 'Write', input: { file_path: join(dir, 'beta.txt'), content: 'b' } }]),
    reply.toolUse([{ id: 'toolu_edit', name: 'Edit', input: { file_path: join(dir, 'alpha.txt'), old_string: 'alpha', new_string: 'beta' } }]),
    reply.text('done'),
  ]);
  const tools = [...defaultTools({ cwd: dir, tools: ['Bash', 'Read', 'Write', 'Edit'] }), echo];
  const onEvent = (event: RunEvent) => void events.push(event);
  const { sessionId } = await runAgent('look, then write', { model: 'm', modelCall: model.call, tools, cwd: dir, permissions: { mode: 'default', deny: ['Write'] }, session: { home }, onEvent });
  records = readTranscript(findSession(home, sessionId)).records;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each tool's card at the last step: its head, and its lines in English and Chinese. */
function cards(t: Timeline) {
  const last = t.steps.length - 1;
  return Object.fromEntries(
    t.tools.filter((x) => x.kind === 'start').map((start) => {
      const entry = toolEntry(t, start, last, NO_CONTEXT);
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
      ['toolu_echo', 'mcp__notes__echo', ECHO_LINE],
      ['toolu_write', 'Write', `Write ${join(dir, 'beta.txt')}`],
      ['toolu_edit', 'Edit', expect.stringMatching(/^Edit /)],
    ]);
  });

  it('shows the display line on the card of every tool, and a denial with its reason and rule, in both languages', () => {
    const shown = cards(buildTimeline(records, graph));
    expect(shown.toolu_read?.head).toEqual({ call: `Read ${join(dir, 'alpha.txt')}` });
    expect(shown.toolu_ls?.head).toEqual({ call: '$ ls' });
    expect(shown.toolu_echo?.head).toEqual({ call: ECHO_LINE });
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

describe('every other place a call is shown uses the same line', () => {
  const READ = () => `Read ${join(dir, 'alpha.txt')}`;
  const WRITE = () => `Write ${join(dir, 'beta.txt')}`;

  it("the reply card lists each tool_use block as its tool shows it, in both languages, checked against the records", () => {
    const t = buildTimeline(records, graph);
    const lists = t.steps.flatMap((step) => {
      const item = replyCard.facts(t, t.steps.indexOf(step), NO_CONTEXT)?.items.find((it) => it.testid === 'tool-uses');
      return item?.line ? [[render('en', item.line), render('zh', item.line)]] : [];
    });
    expect(lists).toEqual([
      [`${READ()}; $ ls; ${ECHO_LINE}`, `${READ()}; $ ls; ${ECHO_LINE}`],
      [WRITE(), WRITE()],
      [expect.stringMatching(/^Edit /), expect.stringMatching(/^Edit /)],
    ]);
    // The checker replays the records on their own: each list is the calls' display lines, and so is each sentence's call.
    const run = { order: readOrder(records, []), ranges: t.steps.map((step) => step.records) };
    expect(shownSteps(t).flatMap((shown, i) => checkShown(shown, run, i, 'toolCards'))).toEqual([]);
    const wrong = shownSteps(t).map((shown) => ({ ...shown, cards: { ...shown.cards, reply: (shown.cards.reply ?? []).map((g) => ({ lines: g.lines.map((l) => l.replace('$ ls', 'bash: ls')) })) }, sentence: shown.sentence.replace('$ ls returns', 'bash: ls returns') }));
    expect(wrong.flatMap((shown, i) => checkShown(shown, run, i, 'toolCards')).length).toBeGreaterThanOrEqual(2);
  });

  it('the step sentences name each call by its display line, in English and Chinese', () => {
    const t = buildTimeline(records, graph);
    const say = (lang: 'en' | 'zh') => t.steps.map((step) => paragraph(lang, step.say)).join('\n');
    expect(say('en')).toContain(`${READ()} returns`);
    expect(say('en')).toContain('$ ls returns');
    expect(say('en')).toContain(`${ECHO_LINE} returns`);
    expect(say('en')).toContain(`${WRITE()} returns; its output is wrapped into a tool_result bound to tool_use_id toolu_write (is_error)`);
    expect(say('zh')).toContain('$ ls 返回了');
    expect(say('zh')).toContain(`${WRITE()} 返回了`);
    for (const lang of ['en', 'zh'] as const) expect(say(lang)).not.toMatch(/bash: ls|"file_path"/);
  });

  it('an older transcript (no display line) names a call as before: name: command, or the input as JSON', () => {
    const old = records.map((r) => (r.type === 'tool_start' ? { ...r, display: undefined, publicName: undefined } : r)) as SessionRecord[];
    const t = buildTimeline(old, graph);
    expect(t.steps.map((step) => paragraph('en', step.say)).join('\n')).toContain('bash: ls returns');
    const run = { order: readOrder(old, []), ranges: t.steps.map((step) => step.records) };
    expect(shownSteps(t).flatMap((shown, i) => checkShown(shown, run, i, 'old'))).toEqual([]);
  });

  it('the sequence diagram draws each call as its tool shows it', () => {
    const lines = sequenceDiagram(events, { prompt: 'look, then write' }).split('\n');
    expect(lines.filter((l) => l.startsWith('  AL->>TL: '))).toEqual([`  AL->>TL: ${READ()}`, '  AL->>TL: $ ls', `  AL->>TL: ${ECHO_LINE}`, `  AL->>TL: ${WRITE()}`, expect.stringMatching(/^ {2}AL->>TL: Edit /)]);
    expect(lines).toContain('  participant TL as Tools');
  });
});

describe('the stepper (--step) shows the call it waits before as its tool shows it', () => {
  it('the tool_start and the reply it waits at carry the display lines, and the page and the terminal say them', async () => {
    const stepper = new Stepper();
    const work = mkdtempSync(join(tmpdir(), 'agentloop-toolcards-step-'));
    writeFileSync(join(work, 'alpha.txt'), 'alpha\n');
    const model = scriptedModel([reply.toolUse([{ id: 'r', name: 'Read', input: { file_path: join(work, 'alpha.txt') } }, { id: 'l', name: 'bash', input: { command: 'ls' } }]), reply.text('done')]);
    const tools = defaultTools({ cwd: work, tools: ['Bash', 'Read'] });
    const run = runAgent('look', { model: 'm', modelCall: model.call, tools, cwd: work, gate: stepper });
    const waited: Effect[] = [];
    for (;;) {
      const effect = await waitFor('the run to wait', () => stepper.current.waiting ?? undefined);
      waited.push(effect);
      stepper.next();
      if (effect.type === 'end') break;
    }
    await run;
    rmSync(work, { recursive: true, force: true });
    const reply1 = waited.find((e) => e.type === 'reply' && e.calls?.length) as Extract<Effect, { type: 'reply' }>;
    expect(reply1.calls).toEqual([`Read ${join(work, 'alpha.txt')}`, '$ ls']);
    const starts = waited.filter((e) => e.type === 'tool_start');
    expect(starts.map((e) => e.display)).toEqual([`Read ${join(work, 'alpha.txt')}`, '$ ls']);
    expect(tr('en', 'step.tool', { call: '$ ls' })).toBe('The run waits before running a tool: $ ls');
    expect(tr('zh', 'step.tool', { call: '$ ls' })).toBe('运行停在执行工具之前：$ ls');
  });
});
